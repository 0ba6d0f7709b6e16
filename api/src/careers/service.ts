import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Request } from 'express';
import { clientKey, mailboxKey, type Throttle } from '../auth/throttle.ts';
import type { applicationRequest } from '../contracts/index.ts';
import {
  CAREERS_LIST_MAX,
  CAREERS_MESSAGES as M,
  type ApplicationAccepted,
  type CareersQuery,
  type Job,
  type JobCategories,
  type JobList,
  type ResumeKind,
  type ResumeUpload,
} from '../contracts/index.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import { HttpError, conflict, notFound } from '../http/errors.ts';
import type { Logger } from '../logger.ts';
import type { Mailer } from '../mail/mailer.ts';
import { JOB_COLUMNS, jobFromRow, type JobRow } from './jobs.ts';
import { applicationReceiptMail, applicationStaffMail, type ApplicationMailFacts } from './mails.ts';
import { receiveResume, resumeKindOf } from './resume.ts';

export type Application = ReturnType<typeof applicationRequest.parse>;

/** How long an uploaded resume waits for its application before the sweep deletes it. */
export const RESUME_TTL_MINUTES = 60;
/** At most this many words of a search are matched (each must appear). */
const SEARCH_MAX_WORDS = 8;

/** `%`, `_` and the escape character itself match literally in a LIKE pattern. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A job that visitors see: published, not closed. */
const OPEN = 'closed_at is null and published_at <= now()';

/**
 * Careers (docs/careers.md): the open jobs and their categories, resume uploads (checked by content, kept in
 * PostgreSQL, never served back) and applications, each mailed to the careers mailbox and acknowledged to the
 * applicant after it is stored (a mail server that is down loses nothing: staff list applications with the CLI).
 */
export class CareersService {
  readonly #orm: Orm;
  readonly #mailer: Mailer;
  readonly #throttle: Throttle;
  readonly #careersEmail: string;
  readonly #log: Logger;

  constructor(deps: { orm: Orm; mailer: Mailer; throttle: Throttle; careersEmail: string; logger: Logger }) {
    this.#orm = deps.orm;
    this.#mailer = deps.mailer;
    this.#throttle = deps.throttle;
    this.#careersEmail = deps.careersEmail;
    this.#log = deps.logger.child({ component: 'careers' });
  }

  #sql(): Sql {
    return new Sql(this.#orm.em.fork() as EntityManager);
  }

  /** The open jobs matching every filter given, newest first (at most CAREERS_LIST_MAX). */
  async list(query: CareersQuery): Promise<JobList> {
    const where = [OPEN];
    const params: unknown[] = [];
    if (query.category) {
      where.push('category = ?');
      params.push(query.category);
    }
    if (query.type) {
      where.push('type = ?');
      params.push(query.type);
    }
    if (query.level) {
      where.push('level = ?');
      params.push(query.level);
    }
    if (query.remote) {
      where.push('remote = ?');
      params.push(query.remote === 'true');
    }
    const words = (query.search ?? '').trim().split(/\s+/).filter(Boolean).slice(0, SEARCH_MAX_WORDS);
    for (const word of words) {
      where.push(
        `concat_ws(' ', title, short_description, description, requirements, preferred, replace(category, '_', ' '),
                   array_to_string(skills, ' ')) ilike ? escape '\\'`,
      );
      params.push(`%${escapeLike(word)}%`);
    }
    const rows = await this.#sql().all<JobRow>(
      `select ${JOB_COLUMNS} from jobs where ${where.join(' and ')}
        order by published_at desc, id limit ${CAREERS_LIST_MAX}`,
      params,
    );
    return { jobs: rows.map(jobFromRow) };
  }

  /** Each category that has open jobs, with how many, in alphabetical order. */
  async categories(): Promise<JobCategories> {
    const rows = await this.#sql().all<{ category: string; count: number }>(
      `select category, count(*)::int as count from jobs where ${OPEN} group by category order by category`,
    );
    return { categories: rows.map((r) => ({ category: r.category, count: Number(r.count) })) };
  }

  /** An open job by its slug; 404 when there is none or it is closed. */
  async bySlug(slug: string): Promise<Job> {
    const row = await this.#sql().one<JobRow>(`select ${JOB_COLUMNS} from jobs where slug = ? and ${OPEN}`, [
      slug,
    ]);
    if (!row) throw notFound(M.jobNotFound);
    return jobFromRow(row);
  }

  /**
   * Stores one resume from a multipart request, after the throttles (checked before the body is read) and the
   * checks of its size (while it streams in) and its content (magic bytes). Answers its id, which the
   * application names within RESUME_TTL_MINUTES.
   */
  async uploadResume(req: Request): Promise<ResumeUpload> {
    await this.#throttle.consume(
      ['resumeUploadIp', clientKey(req.ip ?? 'unknown')],
      ['resumeUploads', 'all'],
    );
    // The platform-wide budget counts stored resumes: a refused file gives its point back, so refusals cannot
    // use up everyone's uploads.
    const file = await receiveResume(req).catch(async (err: unknown) => {
      await this.#throttle.refund('resumeUploads', 'all');
      throw err;
    });
    const kind = await resumeKindOf(file.content);
    if (!kind) {
      await this.#throttle.refund('resumeUploads', 'all');
      this.#log.info({ size: file.content.length }, 'Refused an upload that is not a PDF, DOC or DOCX');
      throw new HttpError(415, M.resumeWrongType);
    }
    const row = await this.#sql().one<{ id: string }>(
      `insert into resume_uploads (kind, size, sha256, file_name, content, expires_at)
       values (?, ?, ?, ?, ?, now() + make_interval(mins => ?)) returning id`,
      [
        kind,
        file.content.length,
        createHash('sha256').update(file.content).digest(),
        file.fileName,
        file.content,
        RESUME_TTL_MINUTES,
      ],
    );
    this.#log.info({ resumeId: row!.id, kind, size: file.content.length }, 'Stored a resume');
    return { resumeId: row!.id, type: kind, size: file.content.length };
  }

  /**
   * Stores an application to an open job with the resume it names, which must be unattached and fresh: in one
   * transaction, the resume is claimed by a conditional update, so two applications racing for one resume
   * cannot both have it. Then mails staff and the applicant (failures are logged; the application stays).
   */
  async apply(jobId: string, application: Application, ip: string): Promise<ApplicationAccepted> {
    // Per network first; the applicant's address counts only once the job and the resume turned out good, so
    // applications in someone else's name to jobs that are not there cannot lock them out.
    await this.#throttle.consume(['applicationIp', clientKey(ip)]);
    await this.#throttle.assertOpen('applicationSender', mailboxKey(application.email));
    const orNull = (value: string | undefined) => (value ? value : null);
    const facts = await this.#sql().transaction(async (sql) => {
      const job = await sql.one<{ id: string; title: string; slug: string; open: boolean }>(
        `select id, title, slug, (${OPEN}) as open from jobs where id = ? for share`,
        [jobId],
      );
      if (!job) throw notFound(M.jobNotFound);
      if (!job.open) throw conflict(M.jobClosed, 'JOB_CLOSED');
      const inserted = await sql.one<{ id: string }>(
        `insert into job_applications (job_id, first_name, last_name, email, phone, location, cover_letter,
                                       portfolio_url, linkedin_url, github_url, source)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
        [
          job.id,
          application.firstName,
          application.lastName,
          application.email,
          orNull(application.phone),
          orNull(application.location),
          orNull(application.coverLetter),
          orNull(application.portfolioUrl),
          orNull(application.linkedinUrl),
          orNull(application.githubUrl),
          application.source ?? null,
        ],
      );
      const applicationId = inserted!.id;
      const resume = await sql.one<{ kind: ResumeKind; size: number; file_name: string | null }>(
        `update resume_uploads set application_id = ?
          where id = ? and application_id is null and expires_at > now()
        returning kind, size, file_name`,
        [applicationId, application.resumeId],
      );
      // Unknown, expired or already attached: the application is rolled back with it.
      if (!resume) throw conflict(M.resumeUnusable, 'RESUME_UNUSABLE');
      const mail: ApplicationMailFacts = {
        applicationId,
        job: { title: job.title, slug: job.slug },
        firstName: application.firstName,
        lastName: application.lastName,
        email: application.email,
        phone: orNull(application.phone),
        location: orNull(application.location),
        coverLetter: orNull(application.coverLetter),
        portfolioUrl: orNull(application.portfolioUrl),
        linkedinUrl: orNull(application.linkedinUrl),
        githubUrl: orNull(application.githubUrl),
        source: application.source ?? null,
        resume: { kind: resume.kind, size: Number(resume.size), fileName: resume.file_name },
      };
      return mail;
    });
    this.#log.info({ applicationId: facts.applicationId, jobId }, 'Stored a job application');
    await this.#throttle.tryConsume('applicationSender', mailboxKey(application.email));
    // Not awaited: the applicant's answer does not wait for a slow mail server.
    void this.#deliver(facts);
    return { applicationId: facts.applicationId };
  }

  async #deliver(facts: ApplicationMailFacts): Promise<void> {
    try {
      await this.#mailer.send(applicationStaffMail(this.#careersEmail, facts));
      await this.#sql().run('update job_applications set staff_mailed_at = now() where id = ?', [
        facts.applicationId,
      ]);
    } catch (err) {
      // Kept, and listed by the staff CLI as not mailed.
      this.#log.error(
        { err, applicationId: facts.applicationId },
        'Could not mail a job application to staff',
      );
    }
    try {
      await this.#mailer.send(applicationReceiptMail(facts.email, facts.job.title));
    } catch (err) {
      this.#log.error({ err, applicationId: facts.applicationId }, 'Could not acknowledge a job application');
    }
  }

  /** Deletes resumes whose application never came; answers how many. */
  async sweepResumes(): Promise<number> {
    return this.#sql().run('delete from resume_uploads where application_id is null and expires_at < now()');
  }
}

/** Runs the sweep of unattached resumes at start and then every `intervalMs`; never holds the process open. */
export function startResumeSweep(
  careers: CareersService,
  logger: Logger,
  intervalMs = 10 * 60 * 1000,
): () => void {
  const log = logger.child({ component: 'careers' });
  const run = () => {
    careers.sweepResumes().then(
      (deleted) => {
        if (deleted > 0) log.info({ deleted }, 'Deleted resumes no application claimed');
      },
      (err: unknown) => log.error({ err }, 'Sweeping unclaimed resumes failed'),
    );
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
