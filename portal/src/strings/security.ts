/**
 * /security and /security/hall-of-fame (commerce-and-content sections 2, 3, 5, 8, 9; docs/security-disclosure.md).
 * The rules' messages are the API's own (`VULNERABILITY_REPORT_MESSAGES` in the contracts).
 */
import type {
  VulnerabilityCategory,
  VulnerabilitySeverity,
} from '@exploit-grid/api/contracts/security-constants';
import { SECURITY_EMAIL } from './site.ts';

export const SECURITY_TITLE = 'Security';
export const SECURITY_LEAD =
  'Found a weakness in Exploit Grid itself (the site, the API, the VPN, the box platform)? Tell us first and privately. We answer quickly, fix what you find, and thank you by name if you wish.';
export const SECURITY_DESCRIPTION =
  'Report a vulnerability in Exploit Grid: response times by severity, our PGP key, the disclosure policy and the hall of fame of researchers.';

export const REPORT_VULNERABILITY = 'Report Vulnerability';
export const PGP_KEY_LINK = 'PGP Key';
export const PGP_KEY_HINT =
  'Encrypt anything sensitive to our OpenPGP key. /.well-known/security.txt is signed with it.';
export const SECURITY_POLICY_LINK = 'Security Policy';
export const HALL_OF_FAME_LINK = 'Hall of Fame';

export const SCOPE_TITLE = 'Scope';
export const SCOPE_BODY =
  'The platform is in scope: this site, its API, sign-in, payments, the VPN and the isolation between boxes and players. The arena boxes are meant to be attacked, but only in matched attack windows and by the rules of the game: an escape from a box into the platform, another player or the host is a platform bug, and we want to hear about it. Please do not test against other players, degrade the service, or read data that is not yours.';

export const RESPONSE_TIMES_TITLE = 'Response Times';
export const RESPONSE_TIMES_LEAD = 'Our targets, counted from the moment a report reaches us.';
export const RESPONSE_LABEL = 'Response';
export const FIX_LABEL = 'Fix';
/** Spec section 9: the security response targets. */
export const responseTimes: readonly {
  severity: string;
  level: VulnerabilitySeverity;
  response: string;
  fix: string;
}[] = [
  { severity: 'Critical', level: 'CRITICAL', response: '4-8 hours', fix: '24-72 hours' },
  { severity: 'High', level: 'HIGH', response: '24 hours', fix: '3-7 days' },
  { severity: 'Medium', level: 'MEDIUM', response: '48 hours', fix: '1-2 weeks' },
  { severity: 'Low', level: 'LOW', response: '72 hours', fix: '2-4 weeks' },
];
export const ACKNOWLEDGEMENT_TARGET = '24-48 hours';
export const ACKNOWLEDGEMENT_NOTE = `Every report is acknowledged within ${ACKNOWLEDGEMENT_TARGET}, with a tracking ID you can quote.`;

export const ALTERNATIVE_CONTACT_TITLE = 'Cannot use the form?';
export const ALTERNATIVE_CONTACT_BODY =
  'Ask for another way to reach the security team (a call, a file exchange, an encrypted channel).';
export const ALTERNATIVE_CONTACT = 'Alternative Contact Request';
export const ALTERNATIVE_CONTACT_HREF = `mailto:${SECURITY_EMAIL}?subject=${encodeURIComponent(ALTERNATIVE_CONTACT)}`;

// The Report Vulnerability modal.
export const REPORT_DIALOG_TITLE = 'Report Vulnerability';
export const REPORTER_SECTION = 'About you';
export const VULNERABILITY_SECTION = 'The vulnerability';
export const ANONYMOUS_LABEL = 'Report anonymously';
export const ANONYMOUS_HINT =
  'We keep no name, no address and no referral source with an anonymous report. We cannot answer it or thank you in the hall of fame.';
export const REPORTER_NAME_LABEL = 'Name';
export const REPORTER_EMAIL_LABEL = 'Email';
export const REPORTER_HANDLE_LABEL = 'Handle';
export const REPORTER_WEBSITE_LABEL = 'Website';
export const REPORTER_TWITTER_LABEL = 'Twitter';
export const REPORTER_LINKEDIN_LABEL = 'LinkedIn';
export const REFERRAL_SOURCE_LABEL = 'Where did you hear about our programme? (URL)';
export const TITLE_LABEL = 'Title';
export const SEVERITY_LABEL = 'Severity';
export const CATEGORY_LABEL = 'Category';
export const CATEGORY_PLACEHOLDER = 'Choose a category';
export const AFFECTED_URL_LABEL = 'Affected URL';
export const AFFECTED_VERSION_LABEL = 'Affected version';
export const DESCRIPTION_LABEL = 'Description';
export const REPRODUCTION_STEPS_LABEL = 'Steps to reproduce';
export const PROOF_OF_CONCEPT_LABEL = 'Proof of concept';
export const IMPACT_ASSESSMENT_LABEL = 'Impact assessment';
export const SUGGESTED_FIX_LABEL = 'Suggested fix';
export const URL_HINT = 'https://…';
export const CANCEL = 'Cancel';
export const SUBMIT_REPORT = 'Submit Report';
export const SUBMITTING = 'Submitting...';
export const CLOSE = 'Close';
export const COPY_TRACKING_ID = 'Copy';
export const COPIED = 'Copied';
export const REPORT_RECEIVED_TITLE = 'Report received';
export const TRACKING_ID_LABEL = 'Tracking ID';
export const REPORT_RECEIVED_BODY = `Keep this tracking ID and quote it in any mail about your report. We acknowledge it within ${ACKNOWLEDGEMENT_TARGET}.`;
export const REPORT_RECEIVED_ANONYMOUS =
  'You reported anonymously: keep this ID, it is the only link to your report.';
export const FIX_THE_FIELDS = 'Some fields need a look: see the messages under them.';

/** Spec section 8. */
export const reportSubmitted = (trackingId: string) =>
  `Report submitted successfully! Tracking ID: ${trackingId}`;
export const REPORT_FAILED = 'Failed to submit report';

export const SEVERITY_LABELS: Record<VulnerabilitySeverity, string> = {
  CRITICAL: 'Critical',
  HIGH: 'High',
  MEDIUM: 'Medium',
  LOW: 'Low',
  INFORMATIONAL: 'Informational',
};

/** The spec's category values with the names a reporter reads. */
export const CATEGORY_LABELS: Record<VulnerabilityCategory, string> = {
  Authentication: 'Authentication',
  Authorization: 'Authorization',
  XSS: 'Cross-Site Scripting (XSS)',
  CSRF: 'Cross-Site Request Forgery (CSRF)',
  SQL: 'SQL Injection',
  RCE: 'Remote Code Execution',
  LFI: 'Local File Inclusion',
  RFI: 'Remote File Inclusion',
  SSRF: 'Server-Side Request Forgery (SSRF)',
  PE: 'Privilege Escalation',
  ID: 'Information Disclosure',
  DoS: 'Denial of Service',
  Crypto: 'Cryptographic Issue',
  BFL: 'Business Logic Flaw',
  IV: 'Input Validation',
  CI: 'Command Injection',
  Other: 'Other',
};

// The hall of fame.
export const HALL_OF_FAME_TITLE = 'Hall of Fame';
export const HALL_OF_FAME_LEAD =
  'The researchers who found weaknesses in Exploit Grid and told us first. Findings stay undisclosed until they are fixed.';
export const HALL_OF_FAME_DESCRIPTION =
  'The security researchers who responsibly disclosed vulnerabilities in Exploit Grid, their accepted findings and the platform’s disclosure statistics.';
export const STAT_RESEARCHERS = 'Researchers';
export const STAT_REPORTS = 'Accepted reports';
export const STAT_CRITICAL = 'Critical findings';
export const RESEARCHERS_TITLE = 'Thanked researchers';
export const reportsCount = (n: number) => `${n} report${n === 1 ? '' : 's'}`;
export const since = (date: string) => `Since ${date}`;
export const moreFindings = (n: number) => `+${n} more`;
export const STATUS_LABELS = { ACCEPTED: 'Accepted', FIXED: 'Fixed' } as const;
export const HALL_OF_FAME_EMPTY_TITLE = 'No researchers yet';
export const HALL_OF_FAME_EMPTY_BODY =
  'Nobody has been thanked here yet. Find something, report it, and your name could be the first.';
export const BACK_TO_SECURITY = 'Back to Security';
export const HALL_OF_FAME_LOADING = 'Loading the hall of fame';
