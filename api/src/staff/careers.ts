import type pg from 'pg';
import type { ResumeKind } from '../contracts/index.ts';
import {
  JOB_COLUMNS,
  jobFromRow,
  jobInput,
  jobProblems,
  slugify,
  type JobInput,
  type JobPatch,
  type JobRow,
} from '../careers/jobs.ts';
import { StaffError, inTransaction, logStaffAction } from './cli.ts';

type Db = Pick<pg.ClientBase, 'query'>;

/** Paths of the careers API that a slug would shadow (`/careers/categories`, `/careers/resumes`). */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set(['categories', 'resumes']);

/** A job as staff listings show it. */
export interface JobListing {
  id: string;
  slug: string;
  title: string;
  category: string;
  type: string;
  level: string;
  open: boolean;
  publishedAt: string;
  closedAt: string | null;
  applications: number;
}

/** The columns of `jobs` each field of a job file is written to. */
const COLUMN_OF: Record<keyof JobInput, string> = {
  slug: 'slug',
  title: 'title',
  shortDescription: 'short_description',
  description: 'description',
  requirements: 'requirements',
  preferred: 'preferred',
  category: 'category',
  type: 'type',
  level: 'level',
  remote: 'remote',
  location: 'location',
  timezone: 'timezone',
  salaryMin: 'salary_min',
  salaryMax: 'salary_max',
  skills: 'skills',
  benefits: 'benefits',
  applicationUrl: 'application_url',
  applicationEmail: 'application_email',
};

function checkSlug(slug: string): void {
  if (RESERVED_SLUGS.has(slug))
    throw new StaffError(`slug ${slug} is reserved (it is a path of the careers API): choose another.`);
}

async function slugTaken(db: Db, slug: string, exceptId?: string): Promise<boolean> {
  const { rows } = await db.query('select 1 from jobs where slug = $1 and id is distinct from $2', [
    slug,
    exceptId ?? null,
  ]);
  return rows.length > 0;
}

/**
 * Publishes a job (open at once) in one transaction with its staff_actions row. Without a slug, one is made
 * from the title (with -2, -3, ... when taken); a slug given that is taken is refused.
 */
export async function publishJob(
  db: Db,
  input: { job: JobInput; actor: string },
): Promise<{ id: string; slug: string }> {
  const { job } = input;
  return inTransaction(db, async () => {
    // One publisher at a time picks a slug: two made from one title do not both take it.
    await db.query('lock table jobs in share row exclusive mode');
    let slug = job.slug;
    if (slug) {
      checkSlug(slug);
      if (await slugTaken(db, slug)) throw new StaffError(`slug ${slug} is taken: choose another.`);
    } else {
      const base = slugify(job.title);
      if (!base) throw new StaffError('The title has no letters or digits to make a slug of: give a slug.');
      slug = base;
      for (let n = 2; RESERVED_SLUGS.has(slug) || (await slugTaken(db, slug)); n++) slug = `${base}-${n}`;
    }
    const fields = { ...job, slug } as Record<string, unknown>;
    const names = Object.keys(fields).filter((k) => fields[k] !== undefined) as (keyof JobInput)[];
    const { rows } = await db.query<{ id: string }>(
      `insert into jobs (${names.map((n) => COLUMN_OF[n]).join(', ')})
       values (${names.map((_, i) => `$${i + 1}`).join(', ')}) returning id`,
      names.map((n) => fields[n]),
    );
    const id = rows[0]!.id;
    await logStaffAction(db, {
      actor: input.actor,
      action: 'JOB_PUBLISH',
      target: slug,
      details: { jobId: id, title: job.title },
    });
    return { id, slug };
  });
}

/** The job file fields of a stored job (what an edit is merged into). */
function inputOf(row: JobRow): Record<string, unknown> {
  return {
    slug: row.slug,
    title: row.title,
    shortDescription: row.short_description,
    description: row.description,
    requirements: row.requirements,
    preferred: row.preferred,
    category: row.category,
    type: row.type,
    level: row.level,
    remote: row.remote,
    location: row.location,
    timezone: row.timezone,
    salaryMin: row.salary_min === null ? null : Number(row.salary_min),
    salaryMax: row.salary_max === null ? null : Number(row.salary_max),
    skills: row.skills,
    benefits: row.benefits,
    applicationUrl: row.application_url,
    applicationEmail: row.application_email,
  };
}

/**
 * Changes the fields a patch names (null removes an optional one), checked again as a whole job (a salary
 * range stays a range); logs which fields changed.
 */
export async function editJob(
  db: Db,
  input: { slug: string; patch: JobPatch; actor: string },
): Promise<{ slug: string; changed: string[] }> {
  return inTransaction(db, async () => {
    const { rows } = await db.query<JobRow>(`select ${JOB_COLUMNS} from jobs where slug = $1 for update`, [
      input.slug,
    ]);
    const row = rows[0];
    if (!row) throw new StaffError(`No job has the slug ${input.slug} (jobs list --all).`);
    const current = inputOf(row);
    const merged = { ...current, ...input.patch };
    const parsed = jobInput.safeParse(merged);
    if (!parsed.success) throw new StaffError(`The job would not be valid:\n${jobProblems(parsed.error)}`);
    const job = parsed.data as Record<string, unknown>;
    const changed = (Object.keys(input.patch) as (keyof JobInput)[]).filter(
      (name) => JSON.stringify(job[name] ?? null) !== JSON.stringify(current[name] ?? null),
    );
    if (changed.includes('slug')) {
      const slug = job.slug as string;
      checkSlug(slug);
      if (await slugTaken(db, slug, row.id)) throw new StaffError(`slug ${slug} is taken: choose another.`);
    }
    if (changed.length > 0) {
      await db.query(
        `update jobs set ${changed.map((n, i) => `${COLUMN_OF[n]} = $${i + 2}`).join(', ')}, updated_at = now()
          where id = $1`,
        [row.id, ...changed.map((n) => job[n] ?? null)],
      );
    }
    const slug = (job.slug as string | undefined) ?? row.slug;
    await logStaffAction(db, {
      actor: input.actor,
      action: 'JOB_EDIT',
      target: slug,
      details: { jobId: row.id, changed, ...(slug !== row.slug ? { previousSlug: row.slug } : {}) },
    });
    return { slug, changed };
  });
}

/** Closes (hidden from /careers, applications refused) or reopens a job; logged either way. */
export async function setJobOpen(
  db: Db,
  input: { slug: string; open: boolean; actor: string; reason: string | null },
): Promise<{ title: string; changed: boolean }> {
  return inTransaction(db, async () => {
    const { rows } = await db.query<{ id: string; title: string; closed_at: Date | null }>(
      'select id, title, closed_at from jobs where slug = $1 for update',
      [input.slug],
    );
    const job = rows[0];
    if (!job) throw new StaffError(`No job has the slug ${input.slug} (jobs list --all).`);
    const changed = input.open ? job.closed_at !== null : job.closed_at === null;
    if (changed)
      await db.query(
        `update jobs set closed_at = ${input.open ? 'null' : 'now()'}, updated_at = now() where id = $1`,
        [job.id],
      );
    await logStaffAction(db, {
      actor: input.actor,
      action: input.open ? 'JOB_REOPEN' : 'JOB_CLOSE',
      target: input.slug,
      reason: input.reason,
      details: { jobId: job.id, changed },
    });
    return { title: job.title, changed };
  });
}

/** Jobs, newest first: the open ones, or all with `all`. */
export async function listJobs(db: Db, options: { all: boolean }): Promise<JobListing[]> {
  const { rows } = await db.query<{
    id: string;
    slug: string;
    title: string;
    category: string;
    type: string;
    level: string;
    published_at: Date;
    closed_at: Date | null;
    applications: number;
  }>(
    `select j.id, j.slug, j.title, j.category, j.type, j.level, j.published_at, j.closed_at,
            (select count(*)::int from job_applications a where a.job_id = j.id) as applications
       from jobs j where $1 or j.closed_at is null
      order by j.published_at desc, j.id`,
    [options.all],
  );
  return rows.map((r) => ({
    id: r.id,
    slug: r.slug,
    title: r.title,
    category: r.category,
    type: r.type,
    level: r.level,
    open: r.closed_at === null,
    publishedAt: r.published_at.toISOString(),
    closedAt: r.closed_at?.toISOString() ?? null,
    applications: r.applications,
  }));
}

/** An application as staff read it (`applications list`, `applications show`). */
export interface ApplicationListing {
  id: string;
  createdAt: string;
  job: { slug: string; title: string };
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  location: string | null;
  coverLetter: string | null;
  portfolioUrl: string | null;
  linkedinUrl: string | null;
  githubUrl: string | null;
  source: string | null;
  staffMailedAt: string | null;
  resume: { kind: ResumeKind; size: number; fileName: string | null } | null;
}

type ApplicationRow = {
  id: string;
  created_at: Date;
  slug: string;
  title: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string | null;
  location: string | null;
  cover_letter: string | null;
  portfolio_url: string | null;
  linkedin_url: string | null;
  github_url: string | null;
  source: string | null;
  staff_mailed_at: Date | null;
  kind: ResumeKind | null;
  size: number | null;
  file_name: string | null;
};

const APPLICATION_SELECT = `
  select a.id, a.created_at, j.slug, j.title, a.first_name, a.last_name, a.email, a.phone, a.location,
         a.cover_letter, a.portfolio_url, a.linkedin_url, a.github_url, a.source, a.staff_mailed_at,
         r.kind, r.size, r.file_name
    from job_applications a
    join jobs j on j.id = a.job_id
    left join resume_uploads r on r.application_id = a.id`;

function applicationOf(r: ApplicationRow): ApplicationListing {
  return {
    id: r.id,
    createdAt: r.created_at.toISOString(),
    job: { slug: r.slug, title: r.title },
    firstName: r.first_name,
    lastName: r.last_name,
    email: r.email,
    phone: r.phone,
    location: r.location,
    coverLetter: r.cover_letter,
    portfolioUrl: r.portfolio_url,
    linkedinUrl: r.linkedin_url,
    githubUrl: r.github_url,
    source: r.source,
    staffMailedAt: r.staff_mailed_at?.toISOString() ?? null,
    resume: r.kind ? { kind: r.kind, size: Number(r.size), fileName: r.file_name } : null,
  };
}

/** The latest applications, newest first, of one job (by slug) or all. */
export async function listApplications(
  db: Db,
  options: { job?: string; limit: number },
): Promise<ApplicationListing[]> {
  if (options.job !== undefined) {
    const { rows } = await db.query('select 1 from jobs where slug = $1', [options.job]);
    if (rows.length === 0) throw new StaffError(`No job has the slug ${options.job} (jobs list --all).`);
  }
  const { rows } = await db.query<ApplicationRow>(
    `${APPLICATION_SELECT}
      where $1::text is null or j.slug = $1
      order by a.created_at desc, a.id desc limit $2`,
    [options.job ?? null, options.limit],
  );
  return rows.map(applicationOf);
}

export async function findApplication(db: Db, id: string): Promise<ApplicationListing> {
  const { rows } = await db.query<ApplicationRow>(`${APPLICATION_SELECT} where a.id = $1`, [id]);
  if (!rows[0]) throw new StaffError(`No application has the id ${id} (applications list).`);
  return applicationOf(rows[0]);
}

/**
 * An application's resume, for a file staff write; the download is logged (it is personal data), in the
 * same transaction as the read.
 */
export async function takeResume(
  db: Db,
  input: {
    applicationId: string;
    actor: string;
    writeTo: (kind: ResumeKind, content: Buffer) => Promise<string>;
  },
): Promise<{ path: string; kind: ResumeKind; size: number }> {
  return inTransaction(db, async () => {
    const { rows } = await db.query<{ kind: ResumeKind; content: Buffer; slug: string }>(
      `select r.kind, r.content, j.slug
         from job_applications a join jobs j on j.id = a.job_id
         join resume_uploads r on r.application_id = a.id
        where a.id = $1`,
      [input.applicationId],
    );
    const resume = rows[0];
    if (!resume)
      throw new StaffError(`No application has the id ${input.applicationId} (applications list).`);
    const path = await input.writeTo(resume.kind, resume.content);
    await logStaffAction(db, {
      actor: input.actor,
      action: 'RESUME_DOWNLOAD',
      target: input.applicationId,
      details: { job: resume.slug, kind: resume.kind, size: resume.content.length },
    });
    return { path, kind: resume.kind, size: resume.content.length };
  });
}

/** The Job the public API would answer for a slug (open or not): `jobs show`. */
export async function findJob(db: Db, slug: string) {
  const { rows } = await db.query<JobRow & { closed_at: Date | null }>(
    `select ${JOB_COLUMNS}, closed_at from jobs where slug = $1`,
    [slug],
  );
  const row = rows[0];
  if (!row) throw new StaffError(`No job has the slug ${slug} (jobs list --all).`);
  return { ...jobFromRow(row), closedAt: row.closed_at?.toISOString() ?? null };
}
