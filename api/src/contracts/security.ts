/**
 * Security disclosure (commerce-and-content sections 3, 5, 7, 8; docs/security-disclosure.md): the
 * vulnerability report the Report Vulnerability modal sends, its answer, and the hall of fame.
 */
import { z } from 'zod';
import {
  DEFAULT_VULNERABILITY_SEVERITY,
  PUBLIC_REPORT_STATUSES,
  VULNERABILITY_CATEGORIES,
  VULNERABILITY_REPORT_LIMITS as LIMITS,
  VULNERABILITY_REPORT_MESSAGES as M,
  VULNERABILITY_SEVERITIES,
  VULNERABILITY_TITLE_MIN,
} from './security-constants.ts';

// eslint-disable-next-line no-control-regex
const SINGLE_LINE = /^[^\u0000-\u001f\u007f-\u009f]*$/;
/**
 * Newlines and tabs, no other control character (C1 included: a terminal may act on them when staff read the
 * report; NUL included: PostgreSQL text cannot hold it).
 */
// eslint-disable-next-line no-control-regex
const PLAIN_TEXT = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*$/;

/** An absolute http:// or https:// URL with a host and no white space (no javascript:, data:, file:, ...). */
export function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\/[^\s]+$/i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const tooLong = (what: string, max: number) => `${what} must be at most ${max} characters`;

/** A required one-line text. */
const line = (what: string, max: number, required: string) =>
  z
    .string(required)
    .trim()
    .min(1, required)
    .max(max, tooLong(what, max))
    .regex(SINGLE_LINE, `${what} ${M.singleLine}`);

/** A required text of several lines. */
const text = (what: string, max: number, required: string) =>
  z
    .string(required)
    .trim()
    .min(1, required)
    .max(max, tooLong(what, max))
    .regex(PLAIN_TEXT, `${what} ${M.plainText}`);

/** Optional fields: absent or empty ('' is what a cleared field sends) means not given. */
const optionalLine = (what: string, max: number) =>
  z
    .string(`${what} must be text`)
    .trim()
    .max(max, tooLong(what, max))
    .regex(SINGLE_LINE, `${what} ${M.singleLine}`)
    .optional();
const optionalText = (what: string, max: number) =>
  z
    .string(`${what} must be text`)
    .trim()
    .max(max, tooLong(what, max))
    .regex(PLAIN_TEXT, `${what} ${M.plainText}`)
    .optional();
const optionalUrl = (what: string, max: number) =>
  z
    .string(`${what} must be text`)
    .trim()
    .max(max, tooLong(what, max))
    .refine((v) => v === '' || isHttpUrl(v), `${what} ${M.url}`)
    .optional();

const emailFormat = z.email();

const blank = (value: string | undefined) => (value === '' ? undefined : value);

/**
 * `POST /security/vulnerability-report` (spec sections 3, 5). Reporter name and email are required unless
 * `isAnonymous`; with it, every reporter field and the referral source are dropped here, so they are never
 * stored or mailed (they are still checked like any field: bounded, no control characters).
 */
export const vulnerabilityReportRequest = z
  .strictObject({
    reporterName: optionalLine('Name', LIMITS.reporterName),
    reporterEmail: z
      .string(M.reporterEmailInvalid)
      .trim()
      .max(LIMITS.reporterEmail, M.reporterEmailInvalid)
      .refine((v) => v === '' || emailFormat.safeParse(v).success, M.reporterEmailInvalid)
      .optional(),
    reporterHandle: optionalLine('Handle', LIMITS.reporterHandle),
    reporterWebsite: optionalUrl('Website', LIMITS.profileUrl),
    reporterTwitter: optionalUrl('Twitter', LIMITS.profileUrl),
    reporterLinkedIn: optionalUrl('LinkedIn', LIMITS.profileUrl),
    isAnonymous: z.boolean(M.anonymous).default(false),
    title: line('Title', LIMITS.title, M.titleRequired).min(VULNERABILITY_TITLE_MIN, M.titleTooShort),
    description: text('Description', LIMITS.description, M.descriptionRequired),
    severity: z.enum(VULNERABILITY_SEVERITIES, M.severity).default(DEFAULT_VULNERABILITY_SEVERITY),
    category: z.enum(VULNERABILITY_CATEGORIES, M.category),
    affectedUrl: optionalUrl('Affected URL', LIMITS.affectedUrl),
    affectedVersion: optionalLine('Affected version', LIMITS.affectedVersion),
    reproductionSteps: text('Steps to reproduce', LIMITS.reproductionSteps, M.reproductionStepsRequired),
    proofOfConcept: optionalText('Proof of concept', LIMITS.proofOfConcept),
    impactAssessment: text('Impact assessment', LIMITS.impactAssessment, M.impactAssessmentRequired),
    suggestedFix: optionalText('Suggested fix', LIMITS.suggestedFix),
    referralSource: optionalUrl('Referral source', LIMITS.profileUrl),
  })
  .superRefine(
    (report, ctx) => {
      if (report.isAnonymous) return;
      if (!report.reporterName)
        ctx.addIssue({ code: 'custom', path: ['reporterName'], message: M.reporterNameRequired });
      if (!report.reporterEmail)
        ctx.addIssue({ code: 'custom', path: ['reporterEmail'], message: M.reporterEmailRequired });
    },
    // Also when other fields are wrong, so the modal lists every problem at once (the API answers the first).
    { when: ({ value }) => typeof value === 'object' && value !== null && !Array.isArray(value) },
  )
  .transform((r) => ({
    isAnonymous: r.isAnonymous,
    title: r.title,
    description: r.description,
    severity: r.severity,
    category: r.category,
    affectedUrl: blank(r.affectedUrl),
    affectedVersion: blank(r.affectedVersion),
    reproductionSteps: r.reproductionSteps,
    proofOfConcept: blank(r.proofOfConcept),
    impactAssessment: r.impactAssessment,
    suggestedFix: blank(r.suggestedFix),
    reporter: r.isAnonymous
      ? null
      : {
          name: r.reporterName!,
          email: r.reporterEmail!,
          handle: blank(r.reporterHandle),
          website: blank(r.reporterWebsite),
          twitter: blank(r.reporterTwitter),
          linkedIn: blank(r.reporterLinkedIn),
          referralSource: blank(r.referralSource),
        },
  }))
  .meta({ id: 'VulnerabilityReportRequest' });
export type VulnerabilityReportRequest = z.input<typeof vulnerabilityReportRequest>;
/** A checked report as the API keeps it: `reporter` is null for an anonymous one. */
export type VulnerabilityReport = z.output<typeof vulnerabilityReportRequest>;

export const vulnerabilityReportResponse = z
  .object({
    /** `EG-VR-XXXX-XXXX-XXXX-XXXX`: quote it in any mail about the report. */
    trackingId: z.string(),
  })
  .meta({ id: 'VulnerabilityReportResponse' });
export type VulnerabilityReportResponse = z.infer<typeof vulnerabilityReportResponse>;

export const hallOfFameFindingSchema = z
  .object({
    id: z.uuid(),
    /** The public title of a FIXED finding; 'Undisclosed finding' until then. */
    title: z.string(),
    submittedAt: z.iso.datetime(),
    status: z.enum(PUBLIC_REPORT_STATUSES),
    /** The severity staff set when they accepted it, once the finding is FIXED; null until then. */
    severity: z.enum(VULNERABILITY_SEVERITIES).nullable(),
  })
  .meta({ id: 'HallOfFameFinding' });
export type HallOfFameFinding = z.infer<typeof hallOfFameFindingSchema>;

export const hallOfFameResearcherSchema = z
  .object({
    /** Stable and opaque: not derived from anything a visitor could check an address against. */
    id: z.string(),
    name: z.string(),
    /** Always null: the platform fetches no third-party images and serves none of its own yet. */
    avatar: z.string().nullable(),
    handle: z.string().nullable(),
    totalReports: z.number().int(),
    firstSubmissionDate: z.iso.datetime(),
    /** Newest first; at most 10. */
    recentVulnerabilities: z.array(hallOfFameFindingSchema),
  })
  .meta({ id: 'HallOfFameResearcher' });
export type HallOfFameResearcher = z.infer<typeof hallOfFameResearcherSchema>;

/** `GET /security/hall-of-fame`: accepted and fixed findings of researchers who gave their name. */
export const hallOfFameSchema = z
  .object({
    researchers: z.array(hallOfFameResearcherSchema),
    stats: z.object({
      totalResearchers: z.number().int(),
      totalReports: z.number().int(),
      criticalFindingsCount: z.number().int(),
    }),
  })
  .meta({ id: 'HallOfFame' });
export type HallOfFame = z.infer<typeof hallOfFameSchema>;
