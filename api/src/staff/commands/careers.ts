import { readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { jobInput, jobPatch, jobProblems } from '../../careers/jobs.ts';
import { SOURCE_LABELS } from '../../careers/mails.ts';
import type { ApplicationSource } from '../../contracts/index.ts';
import {
  fail,
  logStaffAction,
  parseLimit,
  positionals,
  printable,
  stringOption,
  text,
  type StaffCommand,
  type StaffOptionValues,
} from '../cli.ts';
import {
  editJob,
  findApplication,
  findJob,
  listApplications,
  listJobs,
  publishJob,
  setJobOpen,
  takeResume,
  type ApplicationListing,
  type JobListing,
} from '../careers.ts';

/** A job file is a page of text, not a dump: at most this many bytes. */
const JOB_FILE_MAX_BYTES = 256 * 1024;

/** `--file`: a JSON job file read and checked against `schema` before the database is reached. */
function readJobFile<T>(values: StaffOptionValues, command: string, schema: z.ZodType<T>): T {
  const file = stringOption(values, 'file') ?? fail(`${command} needs --file <job.json> (docs/careers.md).`);
  let raw: string;
  try {
    if (statSync(file).size > JOB_FILE_MAX_BYTES)
      fail(`${file} is larger than ${JOB_FILE_MAX_BYTES / 1024} kB: is it a job file?`);
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as Error).name === 'StaffError') throw err;
    fail(`Could not read ${file}: ${(err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (err) {
    fail(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) fail(`${file} is not a valid job:\n${jobProblems(parsed.error)}`);
  return parsed.data;
}

const slugArgument = (value: string) => text('<slug>', value, 100);
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function jobOpenCommand(open: boolean): StaffCommand {
  const name = open ? 'jobs reopen' : 'jobs close';
  return {
    name,
    usage: '<slug> [--reason <text>] [--actor <name>]',
    help: open
      ? 'Opens a closed job again: /careers lists it and it takes applications.'
      : `Closes a job: /careers no longer lists it, its page answers not found and applications are
refused. Its applications stay (applications list --job <slug>).`,
    options: ['reason', 'actor'],
    prepare({ args, values }) {
      const [slug] = positionals(args, ['<slug>']);
      const reason = stringOption(values, 'reason');
      const input = {
        slug: slugArgument(slug!),
        reason: reason === undefined ? null : text('--reason', reason, 500),
        open,
      };
      return async ({ db, actor, out }) => {
        const result = await setJobOpen(db, { ...input, actor });
        const state = open ? 'open' : 'closed';
        out(
          result.changed
            ? `${open ? 'Reopened' : 'Closed'} ${input.slug}: ${result.title}.`
            : `${input.slug} was already ${state}; logged anyway.`,
        );
      };
    },
  };
}

/** jobs publish / edit / close / reopen / list / show, applications list / show / resume (docs/careers.md). */
export const careerCommands: StaffCommand[] = [
  {
    name: 'jobs publish',
    usage: '--file <job.json> [--actor <name>]',
    help: `Publishes a job from a JSON file (docs/examples/job.json; fields of docs/careers.md): open at
once on /careers. Without a slug, one is made from the title.`,
    options: ['file', 'actor'],
    prepare({ args, values }) {
      positionals(args, []);
      const job = readJobFile(values, 'jobs publish', jobInput);
      return async ({ db, actor, out }) => {
        const { id, slug } = await publishJob(db, { job, actor });
        out(`Published ${slug} (${id}): ${job.title}, at /careers/jobs/${slug}`);
      };
    },
  },
  {
    name: 'jobs edit',
    usage: '<slug> --file <changes.json> [--actor <name>]',
    help: `Changes the fields the JSON file names (any of a job file's; null removes an optional one).
The job is checked again as a whole.`,
    options: ['file', 'actor'],
    prepare({ args, values }) {
      const [slug] = positionals(args, ['<slug>']);
      const input = { slug: slugArgument(slug!), patch: readJobFile(values, 'jobs edit', jobPatch) };
      if (Object.keys(input.patch).length === 0) fail('The file changes nothing: name the fields to change.');
      return async ({ db, actor, out }) => {
        const result = await editJob(db, { ...input, actor });
        out(
          result.changed.length
            ? `Edited ${result.slug}: ${result.changed.join(', ')} changed.`
            : `${result.slug} already had those values; nothing changed (logged anyway).`,
        );
      };
    },
  },
  jobOpenCommand(false),
  jobOpenCommand(true),
  {
    name: 'jobs list',
    usage: '[--all]',
    help: 'The open jobs, newest first (--all: the closed ones too), with their applications.',
    options: ['all'],
    prepare({ args, values }) {
      positionals(args, []);
      const all = values.all === true;
      return async ({ db, out }) => {
        const jobs = await listJobs(db, { all });
        out(jobs.length ? jobs.map(jobLine).join('\n') : all ? 'No jobs.' : 'No open jobs.');
      };
    },
  },
  {
    name: 'jobs show',
    usage: '<slug>',
    help: 'A job as the API answers it (JSON), open or closed: a start for a jobs edit file.',
    options: [],
    prepare({ args }) {
      const [slug] = positionals(args, ['<slug>']);
      const wanted = slugArgument(slug!);
      return async ({ db, out }) => {
        out(JSON.stringify(await findJob(db, wanted), null, 2));
      };
    },
  },
  {
    name: 'applications list',
    usage: '[--job <slug>] [--limit <n>]',
    help: `The latest applications (default 50), newest first, of one job or all: id, when, job,
name and email, resume, and whether the careers mailbox was mailed.`,
    options: ['job', 'limit'],
    prepare({ args, values }) {
      positionals(args, []);
      const job = stringOption(values, 'job');
      const query = {
        job: job === undefined ? undefined : slugArgument(job),
        limit: parseLimit(values.limit, 50),
      };
      return async ({ db, out }) => {
        const applications = await listApplications(db, query);
        out(applications.length ? applications.map(applicationLine).join('\n') : 'No applications.');
      };
    },
  },
  {
    name: 'applications show',
    usage: '<applicationId> [--actor <name>]',
    help: 'Everything an applicant sent but the resume (what the careers mail says); the reading is logged.',
    options: ['actor'],
    prepare({ args }) {
      const [id] = positionals(args, ['<applicationId>']);
      if (!uuidPattern.test(id!)) fail('<applicationId> must be an application id (applications list).');
      return async ({ db, actor, out }) => {
        const application = await findApplication(db, id!.toLowerCase());
        // Reading an applicant's details is an access to personal data, logged as the contact and reports ones.
        await logStaffAction(db, { actor, action: 'APPLICATION_READ', target: application.id });
        out(applicationText(application));
      };
    },
  },
  {
    name: 'applications resume',
    usage: '<applicationId> --out <file> [--actor <name>]',
    help: `Writes the application's resume to --out with the extension of what it really is (.pdf,
.doc or .docx: added, or put in place of another of the three); never over an existing file.
The download is logged.`,
    options: ['out', 'actor'],
    prepare({ args, values }) {
      const [id] = positionals(args, ['<applicationId>']);
      if (!uuidPattern.test(id!)) fail('<applicationId> must be an application id (applications list).');
      const out = stringOption(values, 'out') ?? fail('applications resume needs --out <file>.');
      const target = text('--out', out, 1000);
      return async ({ db, actor, out: print }) => {
        const written = await takeResume(db, {
          applicationId: id!.toLowerCase(),
          actor,
          writeTo: async (kind, content) => {
            const file = withExtension(target, kind);
            try {
              // 'wx': refused when the file exists (and through a symbolic link left in its place).
              await writeFile(file, content, { flag: 'wx', mode: 0o600 });
            } catch (err) {
              const code = (err as NodeJS.ErrnoException).code;
              fail(
                code === 'EEXIST'
                  ? `${file} exists: choose another --out (nothing is overwritten).`
                  : `Could not write ${file}: ${(err as Error).message}`,
              );
            }
            return file;
          },
        });
        print(written.path);
      };
    },
  },
];

/** `cv` → `cv.pdf`; `cv.docx` holding a PDF → `cv.pdf`; `cv.pdf` stays. */
export function withExtension(file: string, kind: string): string {
  const ext = path.extname(file).toLowerCase();
  const base = ['.pdf', '.doc', '.docx'].includes(ext) ? file.slice(0, -ext.length) : file;
  return `${base}.${kind}`;
}

function jobLine(j: JobListing): string {
  return [
    j.slug,
    j.open ? 'open' : `closed ${j.closedAt}`,
    `${j.category} ${j.type} ${j.level}`,
    `${j.applications} application(s)`,
    `published ${j.publishedAt}`,
    j.title,
  ].join('  ');
}

const sourceLabel = (source: string | null) =>
  source ? (SOURCE_LABELS[source as ApplicationSource] ?? source) : null;

function applicationLine(a: ApplicationListing): string {
  return [
    a.id,
    a.createdAt,
    a.job.slug,
    printable(`${a.firstName} ${a.lastName} <${a.email}>`, true),
    a.resume ? `${a.resume.kind} ${Math.max(1, Math.round(a.resume.size / 1024))} kB` : 'no resume',
    a.staffMailedAt ? 'mailed' : 'NOT MAILED',
  ].join('  ');
}

function applicationText(a: ApplicationListing): string {
  const rows: [string, string | null][] = [
    ['Application', a.id],
    ['Received', a.createdAt],
    ['Job', `${a.job.title} (${a.job.slug})`],
    ['Name', `${a.firstName} ${a.lastName}`],
    ['Email', a.email],
    ['Phone', a.phone],
    ['Location', a.location],
    ['Portfolio', a.portfolioUrl],
    ['LinkedIn', a.linkedinUrl],
    ['GitHub', a.githubUrl],
    ['Heard of it through', sourceLabel(a.source)],
    [
      'Resume',
      a.resume
        ? `${a.resume.kind} ${a.resume.size} bytes${a.resume.fileName ? ` (sent as ${JSON.stringify(a.resume.fileName)})` : ''}`
        : null,
    ],
    ['Mailed to staff', a.staffMailedAt ?? 'no'],
  ];
  // What the applicant typed is shown with its control characters neutered: it reaches a staff terminal.
  const head = rows
    .filter(([, v]) => v)
    .map(([k, v]) => printable(`${k}: ${v}`, true))
    .join('\n');
  return a.coverLetter ? `${head}\nCover letter:\n${printable(a.coverLetter)}` : `${head}\nNo cover letter.`;
}
