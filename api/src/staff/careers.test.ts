import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { compoundFile, minimalDocx, minimalPdf } from '../testing/documents.ts';
import { startBoxPlatform, type BoxTestPlatform } from '../testing/boxes.ts';
import { runStaff } from '../testing/staff.ts';

const EXAMPLE_JOB = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../docs/examples/job.json',
);

describe('the staff CLI: jobs and applications', function () {
  // Each run of the CLI is a Node process of its own reading the sources: about a second on a busy machine.
  this.timeout(120_000);
  let t: BoxTestPlatform;
  let dir: string;
  before(async () => {
    t = await startBoxPlatform({ env: { TRUST_PROXY: 'loopback' } });
    dir = await mkdtemp(path.join(os.tmpdir(), 'eg-staff-careers-'));
  });
  after(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const staff = (...args: string[]) => runStaff(t.platform.databaseUrl, 'carol-staff', ...args);
  let files = 0;
  /** A JSON file with `content` in the test's directory. */
  const file = async (content: unknown) => {
    const name = path.join(dir, `job-${++files}.json`);
    await writeFile(name, typeof content === 'string' ? content : JSON.stringify(content));
    return name;
  };
  const count = async (table: string) =>
    Number((await t.db.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]!.n);
  const publicJob = async (slug: string) => t.call('GET', `/careers/${slug}`);
  let address = 0;
  /** Uploads `content` and applies with it, as a visitor would (each from an address of its own). */
  async function apply(jobId: string, content: Buffer, email = 'jane@example.test'): Promise<string> {
    const ip = `10.7.0.${++address}`;
    const form = new FormData();
    form.append('resume', new Blob([new Uint8Array(content)]), 'my cv.pdf');
    const upload = await fetch(`${t.platform.baseUrl}/api/v1/careers/resumes`, {
      method: 'POST',
      headers: { 'x-forwarded-for': ip },
      body: form,
    });
    expect(upload.status).to.equal(201);
    const { resumeId } = (await upload.json()) as { resumeId: string };
    const res = await fetch(`${t.platform.baseUrl}/api/v1/careers/${jobId}/apply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      body: JSON.stringify({
        firstName: 'Jane',
        lastName: 'Doe',
        email,
        resumeId,
        coverLetter: 'Hello,\nI break things.',
        source: 'referral',
      }),
    });
    expect(res.status).to.equal(201);
    return ((await res.json()) as { applicationId: string }).applicationId;
  }

  it('publishes the example job of the docs, with a slug made from its title, and logs it', async () => {
    const published = await staff('jobs', 'publish', '--file', EXAMPLE_JOB);
    expect(published.code, published.stderr).to.equal(0);
    expect(published.stdout).to.match(
      /^Published senior-red-team-operator \([0-9a-f-]{36}\): Senior Red Team Operator, at \/careers\/jobs\/senior-red-team-operator\n$/,
    );
    const example = JSON.parse(await readFile(EXAMPLE_JOB, 'utf8')) as Record<string, unknown>;
    const job = await publicJob('senior-red-team-operator');
    expect(job.status).to.equal(200);
    expect(job.body).to.include({
      title: example.title,
      description: example.description,
      salaryMin: example.salaryMin,
      remote: true,
      applicationUrl: null,
    });
    expect(job.body.skills).to.deep.equal(example.skills);
    const log = await staff('log');
    expect(log.stdout).to.match(/JOB_PUBLISH +senior-red-team-operator +by carol-staff/);

    // The same title again gets a slug of its own; a slug given that is taken, or reserved, is refused.
    const again = await staff('jobs', 'publish', '--file', EXAMPLE_JOB);
    expect(again.stdout).to.match(/^Published senior-red-team-operator-2 /);
    const jobs = await count('jobs');
    for (const [slug, message] of [
      ['senior-red-team-operator', 'slug senior-red-team-operator is taken: choose another.'],
      ['categories', 'slug categories is reserved (it is a path of the careers API): choose another.'],
    ]) {
      const refused = await staff('jobs', 'publish', '--file', await file({ ...example, slug }));
      expect(refused.code).to.equal(1);
      expect(refused.stderr.trim()).to.equal(message);
    }
    expect(await count('jobs')).to.equal(jobs);
  });

  it('refuses a job file with every problem told, changing nothing', async () => {
    const jobs = await count('jobs');
    const actions = await count('staff_actions');
    const bad = await file({
      title: '',
      shortDescription: 'x',
      description: 'x',
      requirements: 'x',
      category: 'security team',
      type: 'FULLTIME',
      level: 'SENIOR',
      salaryMin: 20_000_000,
      salaryMax: 10_000_000,
      applicationUrl: 'javascript:alert(1)',
      skills: ['ok', 'line\nbreak'],
      surprise: true,
    });
    const refused = await staff('jobs', 'publish', '--file', bad);
    expect(refused.code).to.equal(1);
    for (const problem of [
      'is not a valid job:',
      'unknown field(s): surprise',
      'title: must not be empty',
      'category: must be 1 to 40 capitals',
      'type: must be one of FULL_TIME, PART_TIME, CONTRACT, INTERNSHIP',
      'applicationUrl: must be an http or https address',
      'skills.1: must be one line of text',
    ])
      expect(refused.stderr).to.include(problem);
    // The salary range is checked once the fields themselves are right.
    const range = await staff(
      'jobs',
      'publish',
      '--file',
      await file({
        title: 'Range',
        shortDescription: 'x',
        description: 'x',
        requirements: 'x',
        category: 'DATA',
        type: 'CONTRACT',
        level: 'JUNIOR',
        salaryMin: 20_000_000,
        salaryMax: 10_000_000,
      }),
    );
    expect(range.stderr).to.include('salaryMin: must not be above salaryMax');
    for (const [args, message] of [
      [['jobs', 'publish'], 'jobs publish needs --file <job.json> (docs/careers.md).'],
      [['jobs', 'publish', '--file', path.join(dir, 'missing.json')], 'Could not read'],
      [['jobs', 'publish', '--file', await file('{"title": ')], 'is not valid JSON'],
      [['jobs', 'close'], 'Missing <slug> (--help).'],
      [['jobs', 'close', 'no-such-job'], 'No job has the slug no-such-job (jobs list --all).'],
      [['jobs', 'list', '--job', 'x'], 'jobs list does not take --job (--help).'],
      [['applications', 'resume', 'nope', '--out', 'x'], '<applicationId> must be an application id'],
      [
        ['applications', 'resume', '00000000-0000-4000-8000-000000000000'],
        'applications resume needs --out <file>.',
      ],
    ] as const) {
      const run = await staff(...args);
      expect(run.code, args.join(' ')).to.equal(1);
      expect(run.stderr, args.join(' ')).to.include(message);
    }
    expect(await count('jobs')).to.equal(jobs);
    expect(await count('staff_actions')).to.equal(actions);
  });

  it('edits the fields a file names, removes those set to null, and checks the job as a whole', async () => {
    const published = await staff(
      'jobs',
      'publish',
      '--file',
      await file({
        title: 'Platform Engineer',
        shortDescription: 'Keep the boxes booting.',
        description: 'Linux, KubeVirt and a lot of disks.',
        requirements: 'Kubernetes in production.',
        preferred: 'systemd-nspawn.',
        category: 'ENGINEERING',
        type: 'FULL_TIME',
        level: 'LEAD',
        location: 'Lisbon',
        salaryMin: 10_000_000,
      }),
    );
    expect(published.code, published.stderr).to.equal(0);
    const edit = await staff(
      'jobs',
      'edit',
      'platform-engineer',
      '--file',
      await file({ level: 'PRINCIPAL', preferred: null, salaryMax: 15_000_000, skills: ['Kubernetes'] }),
    );
    expect(edit.code, edit.stderr).to.equal(0);
    expect(edit.stdout.trim()).to.equal(
      'Edited platform-engineer: preferred, level, salaryMax, skills changed.',
    );
    const job = await publicJob('platform-engineer');
    expect(job.body).to.include({ level: 'PRINCIPAL', salaryMin: 10_000_000, salaryMax: 15_000_000 });
    expect(job.body).not.to.have.property('preferred');
    expect(job.body.title).to.equal('Platform Engineer');

    const invalid = await staff(
      'jobs',
      'edit',
      'platform-engineer',
      '--file',
      await file({ salaryMax: 5_000_000 }),
    );
    expect(invalid.code).to.equal(1);
    expect(invalid.stderr).to.include('salaryMin: must not be above salaryMax');
    const renamed = await staff(
      'jobs',
      'edit',
      'platform-engineer',
      '--file',
      await file({ slug: 'platform-lead' }),
    );
    expect(renamed.stdout.trim()).to.equal('Edited platform-lead: slug changed.');
    expect((await publicJob('platform-engineer')).status).to.equal(404);
    expect((await publicJob('platform-lead')).status).to.equal(200);
    const log = await staff('log');
    expect(log.stdout).to.match(/JOB_EDIT +platform-lead +by carol-staff/);
  });

  it('closes a job (gone from /careers, applications refused) and reopens it', async () => {
    const published = await staff(
      'jobs',
      'publish',
      '--file',
      await file({
        title: 'Short-lived',
        shortDescription: 'x',
        description: 'x',
        requirements: 'x',
        category: 'DATA',
        type: 'PART_TIME',
        level: 'JUNIOR',
      }),
    );
    const id = /\(([0-9a-f-]{36})\)/.exec(published.stdout)![1]!;
    const close = await staff('jobs', 'close', 'short-lived', '--reason', 'filled');
    expect(close.stdout.trim()).to.equal('Closed short-lived: Short-lived.');
    expect((await publicJob('short-lived')).status).to.equal(404);
    const listed = await t.call<{ jobs: { slug: string }[] }>('GET', '/careers');
    expect(listed.body.jobs.map((j) => j.slug)).not.to.include('short-lived');
    const again = await staff('jobs', 'close', 'short-lived');
    expect(again.stdout.trim()).to.equal('short-lived was already closed; logged anyway.');

    const open = await staff('jobs', 'list');
    expect(open.stdout).not.to.include('short-lived');
    const all = await staff('jobs', 'list', '--all');
    expect(all.stdout).to.match(
      /^short-lived {2}closed \S+Z {2}DATA PART_TIME JUNIOR {2}0 application\(s\)/m,
    );

    const reopen = await staff('jobs', 'reopen', 'short-lived');
    expect(reopen.stdout.trim()).to.equal('Reopened short-lived: Short-lived.');
    expect((await publicJob('short-lived')).status).to.equal(200);
    const show = await staff('jobs', 'show', 'short-lived');
    expect(JSON.parse(show.stdout)).to.include({ id, slug: 'short-lived', closedAt: null });
    const log = await staff('log');
    expect(log.stdout).to.match(/JOB_CLOSE +short-lived +by carol-staff: filled/);
    expect(log.stdout).to.match(/JOB_REOPEN +short-lived +by carol-staff/);
  });

  it('lists applications, shows one, and writes each resume byte-identical with the extension of its real type', async () => {
    const job = (await publicJob('senior-red-team-operator')).body as { id: string };
    const pdf = minimalPdf('Jane Doe');
    const docx = minimalDocx('John Roe');
    const doc = compoundFile();
    const first = await apply(job.id, pdf, 'jane@example.test');
    const second = await apply(job.id, docx, 'john@example.test');
    const third = await apply(job.id, doc, 'jo@example.test');

    const list = await staff('applications', 'list', '--job', 'senior-red-team-operator', '--limit', '2');
    expect(list.code, list.stderr).to.equal(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(
      new RegExp(
        `^${third} {2}\\S+Z {2}senior-red-team-operator {2}Jane Doe <jo@example\\.test> {2}doc 8 kB {2}(mailed|NOT MAILED)$`,
      ),
    );
    expect(lines[1]).to.include(second);
    expect((await staff('applications', 'list', '--job', 'nope')).stderr).to.include(
      'No job has the slug nope',
    );

    const show = await staff('applications', 'show', first);
    expect(show.stdout).to.include('Job: Senior Red Team Operator (senior-red-team-operator)');
    expect(show.stdout).to.include('Heard of it through: Employee Referral');
    expect(show.stdout).to.include(`Resume: pdf ${pdf.length} bytes (sent as "my cv.pdf")`);
    expect(show.stdout).to.include('Cover letter:\nHello,\nI break things.');
    const reads = await t.db.query(
      `select actor from staff_actions where action = 'APPLICATION_READ' and target = $1`,
      [first],
    );
    expect(reads.rows).to.have.length(1);

    // Asked for .docx, it is a PDF: written as .pdf.
    const pdfOut = await staff('applications', 'resume', first, '--out', path.join(dir, 'jane.docx'));
    expect(pdfOut.code, pdfOut.stderr).to.equal(0);
    expect(pdfOut.stdout.trim()).to.equal(path.join(dir, 'jane.pdf'));
    expect((await readFile(path.join(dir, 'jane.pdf'))).equals(pdf)).to.equal(true);
    const docxOut = await staff('applications', 'resume', second, '--out', path.join(dir, 'john'));
    expect(docxOut.stdout.trim()).to.equal(path.join(dir, 'john.docx'));
    expect((await readFile(path.join(dir, 'john.docx'))).equals(docx)).to.equal(true);
    const docOut = await staff('applications', 'resume', third, '--out', path.join(dir, 'jo.doc'));
    expect((await readFile(docOut.stdout.trim())).equals(doc)).to.equal(true);

    // Never over an existing file.
    await writeFile(path.join(dir, 'taken.pdf'), 'keep me');
    const refused = await staff('applications', 'resume', first, '--out', path.join(dir, 'taken.pdf'));
    expect(refused.code).to.equal(1);
    expect(refused.stderr.trim()).to.equal(
      `${path.join(dir, 'taken.pdf')} exists: choose another --out (nothing is overwritten).`,
    );
    expect(await readFile(path.join(dir, 'taken.pdf'), 'utf8')).to.equal('keep me');

    const log = await staff('log');
    expect(log.stdout).to.match(new RegExp(`RESUME_DOWNLOAD +${first} +by carol-staff`));
    const listAll = await staff('jobs', 'list');
    expect(listAll.stdout).to.match(
      /^senior-red-team-operator {2}open {2}SECURITY FULL_TIME SENIOR {2}3 application\(s\)/m,
    );
  });
});
