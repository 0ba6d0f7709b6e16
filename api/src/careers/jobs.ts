import { z } from 'zod';
import {
  JOB_CATEGORY_PATTERN,
  JOB_LEVELS,
  JOB_SLUG_MAX,
  JOB_SLUG_PATTERN,
  JOB_TYPES,
  isWebUrl,
  type Job,
} from '../contracts/index.ts';

/** The columns a Job is read from, in `jobFromRow`'s names. */
export const JOB_COLUMNS = `id, slug, title, short_description, description, requirements, preferred, category, type,
  level, remote, location, timezone, salary_min, salary_max, skills, benefits, application_url, application_email,
  published_at, created_at`;

export interface JobRow {
  id: string;
  slug: string;
  title: string;
  short_description: string;
  description: string;
  requirements: string;
  preferred: string | null;
  category: string;
  type: Job['type'];
  level: Job['level'];
  remote: boolean;
  location: string | null;
  timezone: string | null;
  /** bigint: a string from the driver. */
  salary_min: string | number | null;
  salary_max: string | number | null;
  skills: string[];
  benefits: string[];
  application_url: string | null;
  application_email: string | null;
  /** A string through the ORM's connection, a Date through a plain pg client. */
  published_at: string | Date;
  created_at: string | Date;
}

const iso = (value: string | Date) => new Date(value).toISOString();
const cents = (value: string | number | null) => (value === null ? null : Number(value));

export function jobFromRow(row: JobRow): Job {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    shortDescription: row.short_description,
    description: row.description,
    requirements: row.requirements,
    ...(row.preferred ? { preferred: row.preferred } : {}),
    category: row.category,
    type: row.type,
    level: row.level,
    remote: row.remote,
    location: row.location,
    timezone: row.timezone,
    salaryMin: cents(row.salary_min),
    salaryMax: cents(row.salary_max),
    skills: row.skills,
    benefits: row.benefits,
    applicationUrl: row.application_url,
    applicationEmail: row.application_email,
    publishedAt: iso(row.published_at),
    createdAt: iso(row.created_at),
  };
}

// eslint-disable-next-line no-control-regex
const oneLine = (value: string) => !/[\u0000-\u001f\u007f]/.test(value);
// eslint-disable-next-line no-control-regex
const withLines = (value: string) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(value);

const line = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine(oneLine, 'must be one line of text (no control characters)');
const lines = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine(withLines, 'must be plain text (line breaks and tabs, no other control characters)');
/** Whole cents, from 0 to 100 million dollars. */
const amount = z
  .number()
  .int('must be a whole number of cents')
  .min(0, 'must not be negative')
  .max(10_000_000_000, 'must be at most 10000000000 cents');

/**
 * A job as staff write it (`jobs publish --file`, `jobs edit --file`; docs/examples/job.json): the fields of
 * the Job of spec section 3 that are not made by the platform (id, publishedAt, createdAt). Optional fields may
 * be null (in an edit: removed). Unknown fields are refused.
 */
export const jobFields = {
  slug: z
    .string()
    .trim()
    .max(JOB_SLUG_MAX, `must be at most ${JOB_SLUG_MAX} characters`)
    .regex(JOB_SLUG_PATTERN, 'must be lowercase letters and digits in words joined by single hyphens'),
  title: line(120),
  shortDescription: line(300),
  description: lines(20_000),
  requirements: lines(20_000),
  preferred: lines(20_000).nullable(),
  category: z
    .string()
    .trim()
    .regex(JOB_CATEGORY_PATTERN, 'must be 1 to 40 capitals, digits and underscores, starting with a capital'),
  type: z.enum(JOB_TYPES, { error: `must be one of ${JOB_TYPES.join(', ')}` }),
  level: z.enum(JOB_LEVELS, { error: `must be one of ${JOB_LEVELS.join(', ')}` }),
  remote: z.boolean({ error: 'must be true or false' }),
  location: line(120).nullable(),
  timezone: line(64).nullable(),
  salaryMin: amount.nullable(),
  salaryMax: amount.nullable(),
  skills: z.array(line(40)).max(30, 'must have at most 30 entries'),
  benefits: z.array(line(80)).max(30, 'must have at most 30 entries'),
  applicationUrl: z
    .string()
    .trim()
    .refine(isWebUrl, 'must be an http or https address of at most 500 characters')
    .nullable(),
  applicationEmail: z
    .string()
    .trim()
    .max(254, 'must be at most 254 characters')
    .pipe(z.email('must be an email address'))
    .nullable(),
};

/** What `jobs publish` reads: the required fields, the others optional. */
export const jobInput = z
  .strictObject({
    ...jobFields,
    slug: jobFields.slug.optional(),
    preferred: jobFields.preferred.optional(),
    remote: jobFields.remote.optional(),
    location: jobFields.location.optional(),
    timezone: jobFields.timezone.optional(),
    salaryMin: jobFields.salaryMin.optional(),
    salaryMax: jobFields.salaryMax.optional(),
    skills: jobFields.skills.optional(),
    benefits: jobFields.benefits.optional(),
    applicationUrl: jobFields.applicationUrl.optional(),
    applicationEmail: jobFields.applicationEmail.optional(),
  })
  .refine((job) => job.salaryMin == null || job.salaryMax == null || job.salaryMin <= job.salaryMax, {
    message: 'must not be above salaryMax',
    path: ['salaryMin'],
  });
export type JobInput = z.output<typeof jobInput>;

/** What `jobs edit` reads: any of the fields; null removes an optional one. */
export const jobPatch = z.strictObject(
  Object.fromEntries(Object.entries(jobFields).map(([name, schema]) => [name, schema.optional()])) as {
    [K in keyof typeof jobFields]: z.ZodOptional<(typeof jobFields)[K]>;
  },
);
export type JobPatch = z.output<typeof jobPatch>;

/** Every problem of a job file, one a line: `title: must not be empty`. */
export function jobProblems(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.map(String).join('.');
      if (issue.code === 'unrecognized_keys') return `unknown field(s): ${issue.keys.join(', ')}`;
      return field ? `${field}: ${issue.message}` : issue.message;
    })
    .join('\n');
}

/** A slug made from a title: 'Senior Red Team Operator (EU)' → 'senior-red-team-operator-eu'. */
export function slugify(title: string): string {
  const words = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let slug = '';
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > JOB_SLUG_MAX - 4) break;
    slug = next;
  }
  return slug || words[0]?.slice(0, JOB_SLUG_MAX - 4) || '';
}
