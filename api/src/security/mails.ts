/** The mails of security disclosure: to the security team, and to a reporter who gave an address. */
import type { VulnerabilityReport } from '../contracts/index.ts';
import { compose } from '../mail/templates.ts';
import type { MailMessage } from '../mail/mailer.ts';

/** The acknowledgement target a reporter is told (spec section 9). */
export const ACKNOWLEDGEMENT_TARGET = '24-48 hours';

/**
 * Everything the reporter sent, to the security mailbox (compose escapes it in the HTML part). A reporter
 * who gave an address is the Reply-To; an anonymous report says that nobody can be answered.
 */
export function staffReportMail(to: string, trackingId: string, report: VulnerabilityReport): MailMessage {
  const field = (label: string, value: string | undefined) => (value ? [`${label}:\n${value}`] : []);
  const reporter = report.reporter;
  const who = reporter
    ? [
        `Reporter: ${reporter.name} <${reporter.email}>`,
        ...field('Handle', reporter.handle),
        ...field('Website', reporter.website),
        ...field('Twitter', reporter.twitter),
        ...field('LinkedIn', reporter.linkedIn),
        ...field('Referral source', reporter.referralSource),
      ]
    : ['Anonymous report: the reporter left no name and no address, and cannot be answered.'];
  const message = compose(
    to,
    `[${trackingId}] ${report.severity} ${report.category} vulnerability report: ${report.title}`,
    [
      `A vulnerability report was received. Tracking ID: ${trackingId}. Triage it with the staff CLI (reports show ${trackingId}); the reporter was promised an acknowledgement within ${ACKNOWLEDGEMENT_TARGET}.`,
      `Title: ${report.title}`,
      `Severity (the reporter's estimate): ${report.severity}`,
      `Category: ${report.category}`,
      ...who,
      ...field('Affected URL', report.affectedUrl),
      ...field('Affected version', report.affectedVersion),
      ...field('Description', report.description),
      ...field('Steps to reproduce', report.reproductionSteps),
      ...field('Proof of concept', report.proofOfConcept),
      ...field('Impact assessment', report.impactAssessment),
      ...field('Suggested fix', report.suggestedFix),
    ],
  );
  return reporter ? { ...message, replyTo: reporter.email } : message;
}

/**
 * The acknowledgement. It carries nothing the form's sender typed (no name, no title): anyone may type any
 * address, and this mail must not carry their words to a stranger.
 */
export function reportAcknowledgementMail(to: string, trackingId: string, publicUrl: string): MailMessage {
  return compose(to, `Vulnerability report received: ${trackingId}`, [
    `Thank you for reporting a vulnerability to Exploit Grid. Your tracking ID is ${trackingId}: quote it in any mail about this report.`,
    `Our security team acknowledges every report within ${ACKNOWLEDGEMENT_TARGET}, then keeps you informed as it is triaged and fixed. Our disclosure policy: ${publicUrl}/security-policy`,
    'If you did not send a vulnerability report to Exploit Grid, someone typed your address: you can ignore this mail.',
  ]);
}

/** A staff member's answer to a reporter (`reports answer`); replies go to the security mailbox. */
export function reportAnswerMail(
  to: string,
  trackingId: string,
  message: string,
  securityEmail: string,
): MailMessage {
  return {
    ...compose(to, `About your vulnerability report ${trackingId}`, [
      message,
      `Tracking ID: ${trackingId}. Reply to this mail (it reaches ${securityEmail}), quoting it.`,
    ]),
    replyTo: securityEmail,
  };
}
