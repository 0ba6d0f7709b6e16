import type { ApplicationSource, ResumeKind } from '../contracts/index.ts';
import type { MailMessage } from '../mail/mailer.ts';
import { compose } from '../mail/templates.ts';

/** The spec's labels of 'How did you hear about this position?'. */
export const SOURCE_LABELS: Record<ApplicationSource, string> = {
  website: 'Website',
  linkedin: 'LinkedIn',
  twitter: 'Twitter',
  github: 'GitHub',
  referral: 'Employee Referral',
  recruiter: 'Recruiter',
  job_board: 'Job Board',
  other: 'Other',
};

export interface ApplicationMailFacts {
  applicationId: string;
  job: { title: string; slug: string };
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  location: string | null;
  coverLetter: string | null;
  portfolioUrl: string | null;
  linkedinUrl: string | null;
  githubUrl: string | null;
  source: ApplicationSource | null;
  resume: { kind: ResumeKind; size: number; fileName: string | null };
}

/**
 * The application as staff read it (to CAREERS_EMAIL); Reply answers the applicant. Every value is escaped by
 * `compose`; the resume is not attached: staff fetch it with the CLI (docs/careers.md).
 */
export function applicationStaffMail(to: string, a: ApplicationMailFacts): MailMessage {
  const details = [
    ['Phone', a.phone],
    ['Location', a.location],
    ['Portfolio', a.portfolioUrl],
    ['LinkedIn', a.linkedinUrl],
    ['GitHub', a.githubUrl],
    ['Heard of it through', a.source ? SOURCE_LABELS[a.source] : null],
  ]
    .filter(([, value]) => value)
    .map(([label, value]) => `${label}: ${value}`);
  const kB = Math.max(1, Math.round(a.resume.size / 1024));
  return {
    ...compose(to, `[Careers] ${a.job.title}: ${a.firstName} ${a.lastName}`, [
      `${a.firstName} ${a.lastName} <${a.email}> applied for ${a.job.title} (${a.job.slug}).`,
      ...(details.length ? [details.join('\n')] : []),
      ...(a.coverLetter ? ['Cover letter:', a.coverLetter] : ['No cover letter.']),
      `Resume: a ${a.resume.kind.toUpperCase()} file of ${kB} kB${a.resume.fileName ? ` sent as "${a.resume.fileName}"` : ''}. ` +
        `Download it with: make staff ARGS='applications resume ${a.applicationId} --out resume.${a.resume.kind}'`,
      `Application ${a.applicationId}. Reply to this mail to answer the applicant.`,
    ]),
    replyTo: a.email,
  };
}

/**
 * The applicant's acknowledgement. It repeats nothing they typed (anyone may type anyone's address into a
 * public form): only the job's title, which is ours.
 */
export function applicationReceiptMail(to: string, jobTitle: string): MailMessage {
  return compose(to, `Your application for ${jobTitle}`, [
    `Thank you for applying for the ${jobTitle} position at Exploit Grid. Your application and resume reached our team; we read every one and will be in touch soon.`,
    'If you did not apply, someone typed your address into our careers form: you can ignore this mail, and we will not write again about it.',
  ]);
}
