import {
  DEFAULT_VULNERABILITY_SEVERITY,
  type VulnerabilityCategory,
  type VulnerabilitySeverity,
} from '@exploit-grid/api/contracts/security-constants';

/** The Report Vulnerability modal's fields (spec section 3), as typed. */
export type ReportForm = {
  reporterName: string;
  reporterEmail: string;
  reporterHandle: string;
  reporterWebsite: string;
  reporterTwitter: string;
  reporterLinkedIn: string;
  isAnonymous: boolean;
  title: string;
  description: string;
  severity: VulnerabilitySeverity;
  category: VulnerabilityCategory | '';
  affectedUrl: string;
  affectedVersion: string;
  reproductionSteps: string;
  proofOfConcept: string;
  impactAssessment: string;
  suggestedFix: string;
  referralSource: string;
};
export type ReportTextField = Exclude<keyof ReportForm, 'isAnonymous' | 'severity' | 'category'>;

/** What anonymous reporting disables and clears (spec section 5): the reporter's fields and the referral source. */
export const REPORTER_FIELDS = [
  'reporterName',
  'reporterEmail',
  'reporterHandle',
  'reporterWebsite',
  'reporterTwitter',
  'reporterLinkedIn',
  'referralSource',
] as const satisfies readonly ReportTextField[];

export const EMPTY_REPORT: ReportForm = {
  reporterName: '',
  reporterEmail: '',
  reporterHandle: '',
  reporterWebsite: '',
  reporterTwitter: '',
  reporterLinkedIn: '',
  isAnonymous: false,
  title: '',
  description: '',
  severity: DEFAULT_VULNERABILITY_SEVERITY,
  category: '',
  affectedUrl: '',
  affectedVersion: '',
  reproductionSteps: '',
  proofOfConcept: '',
  impactAssessment: '',
  suggestedFix: '',
  referralSource: '',
};

/** Ticking anonymous clears the reporter's fields; unticking leaves them empty. */
export function withAnonymous(form: ReportForm, isAnonymous: boolean): ReportForm {
  if (!isAnonymous) return { ...form, isAnonymous };
  const cleared = Object.fromEntries(REPORTER_FIELDS.map((field) => [field, '']));
  return { ...form, ...cleared, isAnonymous };
}

/**
 * The request the API takes (`vulnerabilityReportRequest`): texts trimmed, empty ones left out, and none of
 * the reporter's fields when anonymous.
 */
export function reportRequestOf(form: ReportForm): Record<string, unknown> {
  const request: Record<string, unknown> = { isAnonymous: form.isAnonymous, severity: form.severity };
  if (form.category) request.category = form.category;
  for (const [field, value] of Object.entries(form)) {
    if (typeof value !== 'string' || field === 'severity' || field === 'category') continue;
    if (form.isAnonymous && (REPORTER_FIELDS as readonly string[]).includes(field)) continue;
    const trimmed = value.trim();
    if (trimmed) request[field] = trimmed;
  }
  return request;
}
