/**
 * Careers (commerce-and-content sections 2-5, 7-9; docs/careers.md): open jobs, their categories, a resume
 * upload and an application. Request schemas are strict: unknown fields are refused.
 */
import { z } from 'zod';
import {
  APPLICATION_LIMITS,
  APPLICATION_SOURCES,
  CAREERS_MESSAGES as M,
  CAREERS_SEARCH_MAX,
  JOB_CATEGORY_PATTERN,
  JOB_LEVELS,
  JOB_TYPES,
  RESUME_KINDS,
  isWebUrl,
} from './careers-constants.ts';

/** A job as the public pages show it (spec section 3). Amounts are in cents. */
export const jobSchema = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    title: z.string(),
    shortDescription: z.string(),
    description: z.string(),
    requirements: z.string(),
    /** Absent when the job has none: the page shows no 'Preferred' section. */
    preferred: z.string().optional(),
    /** Capitals and underscores ('SECURITY', 'RED_TEAM'). */
    category: z.string(),
    type: z.enum(JOB_TYPES),
    level: z.enum(JOB_LEVELS),
    remote: z.boolean(),
    location: z.string().nullable(),
    timezone: z.string().nullable(),
    salaryMin: z.number().int().nullable().meta({ description: 'In cents (USD).' }),
    salaryMax: z.number().int().nullable().meta({ description: 'In cents (USD).' }),
    skills: z.array(z.string()),
    benefits: z.array(z.string()),
    /** An external application form (http or https): Apply Now opens it instead of the modal. */
    applicationUrl: z.string().nullable(),
    applicationEmail: z.string().nullable(),
    publishedAt: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: 'Job' });
export type Job = z.infer<typeof jobSchema>;

/** `GET /careers`: the published jobs that are open, newest first. */
export const jobListSchema = z.object({ jobs: z.array(jobSchema) }).meta({ id: 'JobList' });
export type JobList = z.infer<typeof jobListSchema>;

/** `GET /careers/categories`: how many open jobs each category has. */
export const jobCategoriesSchema = z
  .object({
    categories: z.array(z.object({ category: z.string(), count: z.number().int().positive() })),
  })
  .meta({ id: 'JobCategories' });
export type JobCategories = z.infer<typeof jobCategoriesSchema>;

/** The filters of `GET /careers` (spec section 3); the portal sends only the non-empty ones. */
export const careersQuery = z.strictObject({
  search: z
    .string()
    .trim()
    .max(CAREERS_SEARCH_MAX, `search must be at most ${CAREERS_SEARCH_MAX} characters`)
    .optional()
    .meta({ description: 'Words in the title, descriptions, requirements or skills (case-insensitive).' }),
  category: z.string().regex(JOB_CATEGORY_PATTERN, 'category must be capitals, digits and _').optional(),
  type: z.enum(JOB_TYPES, { error: `type must be one of ${JOB_TYPES.join(', ')}` }).optional(),
  level: z.enum(JOB_LEVELS, { error: `level must be one of ${JOB_LEVELS.join(', ')}` }).optional(),
  remote: z
    .enum(['true', 'false'], { error: 'remote must be true or false' })
    .optional()
    .meta({ description: 'true: remote jobs only; false: on-site jobs only.' }),
});
export type CareersQuery = z.input<typeof careersQuery>;

/** Any slug up to a bound is looked up: one that is no open job's answers 404, whatever its shape. */
export const jobSlugParams = z.strictObject({
  slug: z.string().min(1).max(200, 'slug must be at most 200 characters'),
});
export const jobIdParams = z.strictObject({ jobId: z.uuid('jobId must be a job id') });

/** `POST /careers/resumes`: the stored upload, to name in the application within the hour. */
export const resumeUploadSchema = z
  .object({
    resumeId: z.uuid(),
    /** What the content is, whatever the file was called. */
    type: z.enum(RESUME_KINDS),
    size: z.number().int().positive(),
  })
  .meta({ id: 'ResumeUpload' });
export type ResumeUpload = z.infer<typeof resumeUploadSchema>;

/** One line of text: no control characters, C1 included (it goes into mails and staff terminals). */
// eslint-disable-next-line no-control-regex
const oneLine = (value: string) => !/[\u0000-\u001f\u007f-\u009f]/.test(value);
/** Text with lines: tabs and line breaks only. */
// eslint-disable-next-line no-control-regex
const withLines = (value: string) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/.test(value);

const requiredName = (required: string, label: string) =>
  z
    .string({ error: required })
    .trim()
    .min(1, required)
    .max(APPLICATION_LIMITS.name, `${label} must be at most ${APPLICATION_LIMITS.name} characters`)
    .refine(oneLine, `${label} must be one line of text`);

const optionalLine = (label: string, max: number) =>
  z
    .string({ error: `${label} must be text` })
    .trim()
    .max(max, `${label} must be at most ${max} characters`)
    .refine(oneLine, `${label} must be one line of text`)
    .optional();

const optionalUrl = (message: string) =>
  z
    .string({ error: message })
    .trim()
    .refine((value) => value === '' || isWebUrl(value), message)
    .optional();

/**
 * `POST /careers/{jobId}/apply` (spec sections 3, 5). Text values are trimmed; empty optional ones count as
 * absent. The spec's `resumeUrl` is `resumeId` here: the id `POST /careers/resumes` answered (resumes are never
 * served back, so there is no URL to give).
 */
export const applicationRequest = z
  .strictObject({
    firstName: requiredName(M.firstNameRequired, 'First name'),
    lastName: requiredName(M.lastNameRequired, 'Last name'),
    email: z
      .string({ error: M.emailRequired })
      .trim()
      .min(1, M.emailRequired)
      .max(APPLICATION_LIMITS.email, M.emailInvalid)
      .pipe(z.email(M.emailInvalid)),
    phone: optionalLine('Phone', APPLICATION_LIMITS.phone),
    location: optionalLine('Location', APPLICATION_LIMITS.location),
    coverLetter: z
      .string({ error: 'Cover letter must be text' })
      .trim()
      .max(
        APPLICATION_LIMITS.coverLetter,
        `Cover letter must be at most ${APPLICATION_LIMITS.coverLetter} characters`,
      )
      .refine(withLines, 'Cover letter must be plain text')
      .optional(),
    resumeId: z
      .string({ error: M.resumeRequired })
      .trim()
      .min(1, M.resumeRequired)
      .pipe(z.uuid(M.resumeUnusable))
      .meta({ description: 'The `resumeId` of `POST /careers/resumes` (the spec names it resumeUrl).' }),
    portfolioUrl: optionalUrl(M.portfolioInvalid),
    linkedinUrl: optionalUrl(M.linkedinInvalid),
    githubUrl: optionalUrl(M.githubInvalid),
    source: z
      .enum(APPLICATION_SOURCES, { error: `source must be one of ${APPLICATION_SOURCES.join(', ')}` })
      .optional(),
  })
  .meta({ id: 'ApplicationRequest' });
export type ApplicationRequest = z.input<typeof applicationRequest>;

/** The spec's texts of the application form, by field: the API answers them alone (no field name before). */
export const APPLICATION_FIELD_MESSAGES: ReadonlySet<string> = new Set([
  M.firstNameRequired,
  M.lastNameRequired,
  M.emailRequired,
  M.emailInvalid,
  M.resumeRequired,
  M.portfolioInvalid,
  M.linkedinInvalid,
  M.githubInvalid,
]);

export const applicationAcceptedSchema = z
  .object({ applicationId: z.uuid() })
  .meta({ id: 'ApplicationAccepted' });
export type ApplicationAccepted = z.infer<typeof applicationAcceptedSchema>;
