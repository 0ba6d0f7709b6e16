/**
 * Security disclosure (commerce-and-content sections 2, 3, 5, 8, 9; docs/security-disclosure.md): the plain
 * values, with no zod, so that /security and /security/hall-of-fame read them without downloading the schemas
 * (re-exported by `constants.ts`). The schemas are in `security.ts`.
 */

/** The reporter's estimate (spec section 5), and the severity staff set when they accept a report. */
export const VULNERABILITY_SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFORMATIONAL'] as const;
export type VulnerabilitySeverity = (typeof VULNERABILITY_SEVERITIES)[number];
export const DEFAULT_VULNERABILITY_SEVERITY: VulnerabilitySeverity = 'MEDIUM';

/** The spec's categories, as the API takes them; the portal shows them with their names (strings/security.ts). */
export const VULNERABILITY_CATEGORIES = [
  'Authentication',
  'Authorization',
  'XSS',
  'CSRF',
  'SQL',
  'RCE',
  'LFI',
  'RFI',
  'SSRF',
  'PE',
  'ID',
  'DoS',
  'Crypto',
  'BFL',
  'IV',
  'CI',
  'Other',
] as const;
export type VulnerabilityCategory = (typeof VULNERABILITY_CATEGORIES)[number];

/**
 * A report's life (docs/security-disclosure.md, "States"): NEW when received; staff ACCEPT it with a severity
 * of their own (it joins the hall of fame) or REJECT it with a reason; an accepted one becomes FIXED when the
 * fix is deployed. Only ACCEPTED and FIXED reports of reporters who gave their name are public.
 */
export const VULNERABILITY_REPORT_STATUSES = ['NEW', 'ACCEPTED', 'REJECTED', 'FIXED'] as const;
export type VulnerabilityReportStatus = (typeof VULNERABILITY_REPORT_STATUSES)[number];
export const PUBLIC_REPORT_STATUSES = ['ACCEPTED', 'FIXED'] as const;
export type PublicReportStatus = (typeof PUBLIC_REPORT_STATUSES)[number];

/**
 * Limits of the report's fields, in characters. All of them together stay well under the API's 100 kB body
 * limit in plain text (docs/security-disclosure.md).
 */
export const VULNERABILITY_REPORT_LIMITS = {
  reporterName: 100,
  reporterEmail: 254,
  reporterHandle: 50,
  /** Website, Twitter, LinkedIn and the referral source: URLs. */
  profileUrl: 500,
  title: 200,
  description: 10_000,
  affectedUrl: 2000,
  affectedVersion: 100,
  reproductionSteps: 10_000,
  proofOfConcept: 10_000,
  impactAssessment: 5000,
  suggestedFix: 5000,
} as const;
export const VULNERABILITY_TITLE_MIN = 5;

/** What a valid report's fields must be; the API and the Report Vulnerability modal say the same. */
export const VULNERABILITY_REPORT_MESSAGES = {
  titleRequired: 'Title is required',
  titleTooShort: `Title must be at least ${VULNERABILITY_TITLE_MIN} characters`,
  descriptionRequired: 'Description is required',
  reproductionStepsRequired: 'Steps to reproduce are required',
  impactAssessmentRequired: 'Impact assessment is required',
  reporterNameRequired: 'Name is required unless you report anonymously',
  reporterEmailRequired: 'Email is required unless you report anonymously',
  reporterEmailInvalid: 'Enter a valid email address.',
  severity: `Severity must be one of ${VULNERABILITY_SEVERITIES.join(', ')}`,
  category: `Category must be one of ${VULNERABILITY_CATEGORIES.join(', ')}`,
  url: 'must be an http:// or https:// URL',
  singleLine: 'must be a single line of text',
  plainText: 'must be plain text',
  anonymous: 'isAnonymous must be true or false',
} as const;

/** `EG-VR-` and 16 symbols of Crockford's base32 in groups of 4: 80 random bits, never a sequence. */
export const TRACKING_ID_PATTERN = /^EG-VR-[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/;

/**
 * The title the hall of fame shows for a finding that is not fixed yet: a title can tell how to attack what is
 * still open. A FIXED finding shows the public title staff set, else the reporter's own.
 */
export const UNDISCLOSED_FINDING_TITLE = 'Undisclosed finding';
/** A researcher card shows this many findings, then '+N more' (spec section 9). */
export const HALL_OF_FAME_CARD_FINDINGS = 3;
/** The newest findings the hall of fame lists per researcher; the card counts the rest from totalReports. */
export const HALL_OF_FAME_RECENT_FINDINGS = 10;
