import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import pg from 'pg';
import {
  CAREERS_MESSAGES as M,
  RESUME_MAX_BYTES,
  jobCategoriesSchema,
  jobListSchema,
  jobSchema,
  type Job,
} from '../contracts/index.ts';
import type { JobInput } from './jobs.ts';
import { publishJob, setJobOpen } from '../staff/careers.ts';
import {
  compoundFile,
  elfExecutable,
  minimalDocx,
  minimalPdf,
  plainZip,
  pngImage,
  windowsExecutable,
} from '../testing/documents.ts';
import { startTestPlatform, type TestPlatform } from '../testing/fixtures.ts';
import { Mailbox } from '../testing/mailbox.ts';
import { testLogger } from '../testing/logger.ts';
import { CareersService } from './service.ts';

const CAREERS_EMAIL = 'careers@grid.test';

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

/** A job file as staff write it; each test changes what it needs. */
const baseJob = (over: Partial<JobInput> = {}): JobInput => ({
  title: 'Red Team Operator',
  shortDescription: 'Break our arena before players do.',
  description: 'You attack the platform and its boxes, and write up what you find.',
  requirements: '3 years of offensive security work.\nComfort with Linux internals.',
  category: 'SECURITY',
  type: 'FULL_TIME',
  level: 'SENIOR',
  remote: true,
  skills: ['Linux', 'Exploitation', 'Python', 'C', 'Reporting'],
  benefits: ['Remote-first'],
  ...over,
});

describe('careers: jobs, resume uploads and applications', function () {
  this.timeout(60_000);
  let platform: TestPlatform;
  let mailbox: Mailbox;
  let db: pg.Client;
  let counter = 0;
  /** Each test speaks from an address of its own, so one test's throttles do not touch another's. */
  let ip: string;
  beforeEach(() => {
    counter++;
    ip = `10.1.${Math.floor(counter / 250)}.${counter % 250}`;
  });

  const jobs: Record<string, { id: string; slug: string }> = {};

  before(async () => {
    mailbox = new Mailbox();
    const smtpUrl = await mailbox.start();
    platform = await startTestPlatform({
      env: { SMTP_URL: smtpUrl, CAREERS_EMAIL, TRUST_PROXY: 'loopback' },
    });
    db = new pg.Client({ connectionString: platform.databaseUrl });
    await db.connect();
    const publish = async (key: string, job: JobInput) => {
      jobs[key] = await publishJob(db, { job, actor: 'test' });
    };
    await publish('red', baseJob({ salaryMin: 12_000_000, salaryMax: 16_000_000, timezone: 'UTC±3' }));
    await publish(
      'platform',
      baseJob({
        title: 'Platform Engineer',
        shortDescription: 'Keep 10,000 boxes booting: 100% uptime is the goal.',
        category: 'ENGINEERING',
        type: 'CONTRACT',
        level: 'LEAD',
        remote: false,
        location: 'Lisbon, Portugal',
        skills: ['Kubernetes', 'KubeVirt'],
        preferred: 'You ran systemd-nspawn in anger.',
      }),
    );
    await publish(
      'intern',
      baseJob({
        title: 'Blue Team Intern',
        shortDescription: 'Learn to defend boxes_under_fire.',
        category: 'SECURITY',
        type: 'INTERNSHIP',
        level: 'ENTRY',
        remote: false,
        skills: ['Networking'],
      }),
    );
    await publish('closed', baseJob({ title: 'Data Analyst', category: 'DATA', type: 'PART_TIME' }));
    await setJobOpen(db, { slug: jobs.closed!.slug, open: false, actor: 'test', reason: null });
  });
  after(async () => {
    await db?.end();
    await platform?.close();
    await mailbox?.stop();
  });

  async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<Answer<T>> {
    const headers: Record<string, string> = { 'x-forwarded-for': ip };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${platform.baseUrl}/api/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T, headers: res.headers };
  }

  /** `POST /careers/resumes` as a browser's form sends it. */
  async function upload(
    content: Buffer,
    options: { name?: string; type?: string; field?: string; extra?: (form: FormData) => void } = {},
  ): Promise<Answer<{ resumeId: string; type: string; size: number; message: string }>> {
    const form = new FormData();
    form.append(
      options.field ?? 'resume',
      new Blob([new Uint8Array(content)], { type: options.type ?? 'application/pdf' }),
      options.name ?? 'resume.pdf',
    );
    options.extra?.(form);
    const res = await fetch(`${platform.baseUrl}/api/v1/careers/resumes`, {
      method: 'POST',
      headers: { 'x-forwarded-for': ip },
      body: form,
    });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text), headers: res.headers };
  }

  const stored = async () =>
    Number((await db.query<{ n: string }>('select count(*) as n from resume_uploads')).rows[0]!.n);
  const applications = async () =>
    Number((await db.query<{ n: string }>('select count(*) as n from job_applications')).rows[0]!.n);

  const list = async (query = '') => {
    const answer = await call<{ jobs: Job[] }>('GET', `/careers${query}`);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body.jobs.map((j) => j.slug);
  };

  describe('the open jobs', () => {
    it('lists the open jobs, newest first, with the fields of the spec, and hides closed ones', async () => {
      const answer = await call('GET', '/careers');
      expect(answer.status).to.equal(200);
      const parsed = jobListSchema.strict().parse(answer.body);
      expect(parsed.jobs.map((j) => j.slug)).to.deep.equal([
        jobs.intern!.slug,
        jobs.platform!.slug,
        jobs.red!.slug,
      ]);
      const red = parsed.jobs.find((j) => j.slug === 'red-team-operator')!;
      expect(Object.keys(red).sort()).to.deep.equal(
        [
          'id',
          'slug',
          'title',
          'shortDescription',
          'description',
          'requirements',
          'category',
          'type',
          'level',
          'remote',
          'location',
          'timezone',
          'salaryMin',
          'salaryMax',
          'skills',
          'benefits',
          'applicationUrl',
          'applicationEmail',
          'publishedAt',
          'createdAt',
        ].sort(),
      );
      expect(red).to.include({
        id: jobs.red!.id,
        title: 'Red Team Operator',
        salaryMin: 12_000_000,
        salaryMax: 16_000_000,
        remote: true,
        timezone: 'UTC±3',
        location: null,
      });
      const platformJob = parsed.jobs.find((j) => j.slug === 'platform-engineer')!;
      expect(platformJob.preferred).to.equal('You ran systemd-nspawn in anger.');
      expect(await list()).not.to.include(jobs.closed!.slug);
    });

    it('filters by category, type, level and remote, each alone and together', async () => {
      expect(await list('?category=SECURITY')).to.deep.equal([jobs.intern!.slug, jobs.red!.slug]);
      expect(await list('?category=DATA')).to.deep.equal([]);
      expect(await list('?type=CONTRACT')).to.deep.equal([jobs.platform!.slug]);
      expect(await list('?level=ENTRY')).to.deep.equal([jobs.intern!.slug]);
      expect(await list('?remote=true')).to.deep.equal([jobs.red!.slug]);
      expect(await list('?remote=false')).to.deep.equal([jobs.intern!.slug, jobs.platform!.slug]);
      expect(await list('?category=SECURITY&remote=false&level=ENTRY&type=INTERNSHIP')).to.deep.equal([
        jobs.intern!.slug,
      ]);
      expect(await list('?category=SECURITY&type=CONTRACT')).to.deep.equal([]);
    });

    it('searches titles, descriptions and skills case-insensitively, every word, wildcards taken literally', async () => {
      expect(await list('?search=red%20TEAM')).to.deep.equal([jobs.red!.slug]);
      expect(await list('?search=kubevirt')).to.deep.equal([jobs.platform!.slug]);
      expect(await list('?search=nspawn')).to.deep.equal([jobs.platform!.slug]);
      expect(await list('?search=operator%20kubernetes')).to.deep.equal([]);
      // % and _ are characters to find, not patterns: only the texts that hold them match.
      expect(await list('?search=%25')).to.deep.equal([jobs.platform!.slug]);
      expect(await list('?search=s_u')).to.deep.equal([jobs.intern!.slug]);
      expect(await list('?search=%5C')).to.deep.equal([]);
      // The closed job's words find nothing.
      expect(await list('?search=analyst')).to.deep.equal([]);
      expect(await list('?search=%20%20')).to.have.length(3);
    });

    it('refuses filter values it does not know with 400', async () => {
      for (const query of [
        '?type=FULLTIME',
        '?level=senior',
        '?remote=yes',
        '?category=security',
        '?category=DROP%20TABLE',
        `?search=${'a'.repeat(101)}`,
        '?sort=title',
        '?type=FULL_TIME&type=CONTRACT',
      ]) {
        const answer = await call('GET', `/careers${query}`);
        expect(answer.status, query).to.equal(400);
        expect(answer.body.message, query).to.be.a('string');
      }
    });

    it('counts the open jobs of each category', async () => {
      const answer = await call('GET', '/careers/categories');
      expect(answer.status).to.equal(200);
      expect(jobCategoriesSchema.parse(answer.body)).to.deep.equal({
        categories: [
          { category: 'ENGINEERING', count: 1 },
          { category: 'SECURITY', count: 2 },
        ],
      });
    });

    it('answers an open job by its slug, and 404 for a closed, unknown or malformed one', async () => {
      const answer = await call('GET', `/careers/${jobs.red!.slug}`);
      expect(answer.status).to.equal(200);
      expect(jobSchema.strict().parse(answer.body).id).to.equal(jobs.red!.id);
      for (const slug of [jobs.closed!.slug, 'no-such-job', 'UPPER', 'a'.repeat(81), "x'%20or%20'1'%3D'1"]) {
        const missing = await call('GET', `/careers/${slug}`);
        expect(missing.status, slug).to.equal(404);
        expect(missing.body.message, slug).to.equal(M.jobNotFound);
      }
      expect((await call('GET', `/careers/${'a'.repeat(201)}`)).status).to.equal(400);
    });
  });

  describe('resume uploads', () => {
    it('stores a real PDF, DOC and DOCX, told apart by content whatever their names', async () => {
      const pdf = minimalPdf();
      const before = await stored();
      const answers = [
        await upload(pdf, { name: 'Jane Doe CV.pdf' }),
        await upload(compoundFile(), { name: 'cv.doc', type: 'application/msword' }),
        // A real DOCX sent under a misleading name and type is what it is.
        await upload(minimalDocx(), { name: 'cv.pdf', type: 'application/pdf' }),
      ];
      expect(answers.map((a) => [a.status, a.body.type])).to.deep.equal([
        [201, 'pdf'],
        [201, 'doc'],
        [201, 'docx'],
      ]);
      expect(answers[0]!.body.size).to.equal(pdf.length);
      expect(await stored()).to.equal(before + 3);
      const { rows } = await db.query<{ content: Buffer; kind: string; file_name: string; expires_at: Date }>(
        'select content, kind, file_name, expires_at from resume_uploads where id = $1',
        [answers[0]!.body.resumeId],
      );
      expect(rows[0]!.content.equals(pdf)).to.equal(true);
      expect(rows[0]!.file_name).to.equal('Jane Doe CV.pdf');
      // Kept an hour for its application.
      expect(rows[0]!.expires_at.getTime() - Date.now()).to.be.within(59 * 60_000, 60 * 60_000);
    });

    it('accepts a file of exactly 5 MB and refuses one byte more, storing nothing', async () => {
      const exact = minimalPdf('Exactly five', RESUME_MAX_BYTES);
      expect(exact.length).to.equal(RESUME_MAX_BYTES);
      expect((await upload(exact)).status).to.equal(201);
      const before = await stored();
      const over = minimalPdf('One byte more', RESUME_MAX_BYTES + 1);
      const answer = await upload(over);
      expect(answer.status).to.equal(413);
      expect(answer.body.message).to.equal(M.resumeTooLarge);
      expect(await stored()).to.equal(before);
    });

    it('does not read a body that says it is far too large', async () => {
      // Headers that announce 100 MB, and a few bytes: the answer comes at once, the rest is never read.
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${platform.baseUrl}/api/v1/careers/resumes`, {
          method: 'POST',
          headers: {
            'x-forwarded-for': ip,
            'content-type': 'multipart/form-data; boundary=x',
            'content-length': String(100 * 1024 * 1024),
          },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        req.write('--x\r\n');
      });
      expect(answer.status).to.equal(413);
      expect(JSON.parse(answer.body).message).to.equal(M.resumeTooLarge);
    });

    it('refuses a PNG named cv.pdf and declared application/pdf', async () => {
      const before = await stored();
      const answer = await upload(pngImage(), { name: 'cv.pdf', type: 'application/pdf' });
      expect(answer.status).to.equal(415);
      expect(answer.body.message).to.equal(M.resumeWrongType);
      expect(await stored()).to.equal(before);
    });

    it('refuses executables named resume.pdf, and files that only look like office documents', async () => {
      const before = await stored();
      for (const [what, content, name, type] of [
        ['an ELF executable', elfExecutable(), 'resume.pdf', 'application/pdf'],
        ['a Windows executable', windowsExecutable(), 'resume.pdf', 'application/pdf'],
        [
          'a compound file that is not a Word document (an MSI)',
          compoundFile('SummaryInformation'),
          'cv.doc',
          'application/msword',
        ],
        [
          'a zip that is not a Word document',
          plainZip(),
          'cv.docx',
          'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        ],
        ['text', Buffer.from('%PD'), 'cv.pdf', 'application/pdf'],
        [
          'a PDF signature further on',
          Buffer.concat([Buffer.from('MZ'), minimalPdf()]),
          'cv.pdf',
          'application/pdf',
        ],
      ] as const) {
        const answer = await upload(content, { name, type });
        expect(answer.status, what).to.equal(415);
        expect(answer.body.message, what).to.equal(M.resumeWrongType);
      }
      expect(await stored()).to.equal(before);
    });

    it('refuses a request that is not one file in the resume field', async () => {
      const before = await stored();
      const empty = await upload(Buffer.alloc(0));
      expect(empty.status).to.equal(400);
      expect(empty.body.message).to.equal(M.resumeRequired);
      const other = await upload(minimalPdf(), { field: 'file' });
      expect(other.status).to.equal(400);
      expect(other.body.message).to.equal(M.uploadMalformed);
      const two = await upload(minimalPdf(), {
        extra: (form) => form.append('resume', new Blob([minimalPdf()]), 'second.pdf'),
      });
      expect(two.status).to.equal(400);
      const field = await upload(minimalPdf(), { extra: (form) => form.append('note', 'hello') });
      expect(field.status).to.equal(400);
      const json = await call('POST', '/careers/resumes', { resume: 'JVBERi0=' });
      expect(json.status).to.equal(400);
      expect(json.body.message).to.equal(M.uploadMalformed);
      expect(await stored()).to.equal(before);
    });

    it('throttles uploads per client address: the 11th in an hour gets 429 with Retry-After, unread', async () => {
      const small = compoundFile();
      for (let i = 0; i < 10; i++) expect((await upload(small, { name: 'cv.doc' })).status).to.equal(201);
      const before = await stored();
      const refused = await upload(small, { name: 'cv.doc' });
      expect(refused.status).to.equal(429);
      expect(Number(refused.headers.get('retry-after'))).to.be.above(0);
      expect(refused.body.message).to.match(/^Too many resumes uploaded from your network\. Try again in/);
      expect(await stored()).to.equal(before);
      // Another address is not affected.
      ip = '10.9.9.9';
      expect((await upload(small, { name: 'cv.doc' })).status).to.equal(201);
    });

    it('gives the platform-wide upload budget back for refused files: refusals cannot use it up', async () => {
      const budget = async () =>
        Number(
          (
            await db.query(
              "select coalesce(sum(points), 0) as n from rate_limits where key like 'resumeUploads%'",
            )
          ).rows[0].n,
        );
      ip = '10.8.0.1';
      const before = await budget();
      for (const file of [elfExecutable(), windowsExecutable(), pngImage()])
        expect((await upload(file, { name: 'cv.pdf', type: 'application/pdf' })).status).to.equal(415);
      expect(await budget()).to.equal(before);
      expect((await upload(minimalPdf())).status).to.equal(201);
      expect(await budget()).to.equal(before + 1);
    });

    it('sweeps resumes no application claimed once they expire', async () => {
      const old = await upload(minimalPdf());
      const fresh = await upload(minimalPdf());
      await db.query("update resume_uploads set expires_at = now() - interval '1 minute' where id = $1", [
        old.body.resumeId,
      ]);
      const service = new CareersService({
        orm: platform.orm,
        mailer: { send: async () => undefined, close: () => undefined },
        throttle: undefined as never,
        careersEmail: CAREERS_EMAIL,
        logger: testLogger,
      });
      expect(await service.sweepResumes()).to.equal(1);
      const { rows } = await db.query('select id from resume_uploads where id = any($1)', [
        [old.body.resumeId, fresh.body.resumeId],
      ]);
      expect(rows.map((r) => r.id)).to.deep.equal([fresh.body.resumeId]);
    });
  });

  describe('applications', () => {
    let applied = 0;
    const applicant = (resumeId: string, over: Record<string, unknown> = {}) => ({
      firstName: 'Jane',
      lastName: 'Doe',
      email: `jane.${counter}.${++applied}@example.test`,
      resumeId,
      ...over,
    });
    const newResume = async () => (await upload(minimalPdf())).body.resumeId;

    it('refuses each rule of the form with the text of the spec, storing nothing', async () => {
      const resumeId = await newResume();
      const before = await applications();
      const cases: [Record<string, unknown>, string][] = [
        [{ firstName: undefined }, M.firstNameRequired],
        [{ firstName: '   ' }, M.firstNameRequired],
        [{ lastName: '' }, M.lastNameRequired],
        [{ lastName: undefined }, M.lastNameRequired],
        [{ email: undefined }, M.emailRequired],
        [{ email: ' ' }, M.emailRequired],
        [{ email: 'jane.doe' }, M.emailInvalid],
        [{ email: 'jane@' }, M.emailInvalid],
        [{ resumeId: undefined }, M.resumeRequired],
        [{ resumeId: '' }, M.resumeRequired],
        [{ portfolioUrl: 'not a url' }, M.portfolioInvalid],
        [{ portfolioUrl: 'javascript:alert(1)' }, M.portfolioInvalid],
        [{ linkedinUrl: 'linkedin.com/in/jane' }, M.linkedinInvalid],
        [{ githubUrl: 'ftp://github.com/jane' }, M.githubInvalid],
      ];
      for (const [change, message] of cases) {
        const body = JSON.parse(JSON.stringify(applicant(resumeId, change))) as Record<string, unknown>;
        const answer = await call('POST', `/careers/${jobs.red!.id}/apply`, body);
        expect(answer.status, message).to.equal(400);
        expect(answer.body.message, JSON.stringify(change)).to.equal(message);
      }
      // The first rule broken is the one told, in the form's order.
      const all = await call('POST', `/careers/${jobs.red!.id}/apply`, {});
      expect(all.body.message).to.equal(M.firstNameRequired);
      for (const [change, pattern] of [
        [{ source: 'newspaper' }, /^source: source must be one of website/],
        [{ phone: 'x'.repeat(41) }, /^phone: Phone must be at most 40 characters/],
        [{ firstName: 'Jane\r\nBcc: victim@example.test' }, /^firstName: First name must be one line/],
        [{ coverLetter: 'x'.repeat(10_001) }, /^coverLetter: Cover letter must be at most 10000/],
        [{ resumeUrl: 'https://example.test/cv.pdf' }, /^Unknown field in request body: resumeUrl\.$/],
        [{ resumeId: 'not-a-uuid' }, new RegExp(`^resumeId: ${M.resumeUnusable.replace(/\./g, '\\.')}`)],
      ] as const) {
        const answer = await call('POST', `/careers/${jobs.red!.id}/apply`, applicant(resumeId, change));
        expect(answer.status, JSON.stringify(change)).to.equal(400);
        expect(answer.body.message).to.match(pattern);
      }
      expect(await applications()).to.equal(before);
    });

    it('stores an application, mails the careers mailbox (escaped) and acknowledges the applicant', async () => {
      const resumeId = await newResume();
      const answer = await call<{ applicationId: string }>('POST', `/careers/${jobs.red!.id}/apply`, {
        firstName: '  <script>alert(1)</script> ',
        lastName: 'Doe',
        email: 'jane.applicant@example.test',
        phone: '+351 555 0100',
        location: '',
        coverLetter: 'I break things.\n<b>Hire me</b> & see.',
        resumeId,
        portfolioUrl: 'https://jane.example.test',
        linkedinUrl: '',
        githubUrl: 'https://github.com/jane',
        source: 'job_board',
      });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
      const { applicationId } = answer.body;
      const { rows } = await db.query(
        `select a.*, r.id as resume_id from job_applications a join resume_uploads r on r.application_id = a.id
          where a.id = $1`,
        [applicationId],
      );
      expect(rows[0]).to.include({
        job_id: jobs.red!.id,
        first_name: '<script>alert(1)</script>',
        email: 'jane.applicant@example.test',
        location: null,
        linkedin_url: null,
        source: 'job_board',
        resume_id: resumeId,
      });

      const staff = await mailbox.waitFor(CAREERS_EMAIL, /^\[Careers\] Red Team Operator: /);
      expect(staff.text).to.include(
        '<script>alert(1)</script> Doe <jane.applicant@example.test> applied for',
      );
      expect(staff.text).to.include('Heard of it through: Job Board');
      expect(staff.text).to.include(`applications resume ${applicationId}`);
      expect(staff.html).to.include('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(staff.html).to.include('&lt;b&gt;Hire me&lt;/b&gt; &amp; see.');
      expect(staff.html).not.to.include('<script>');
      expect(staff.html).not.to.include('<b>Hire me');
      expect(staff.replyTo?.value[0]?.address).to.equal('jane.applicant@example.test');
      expect(staff.attachments).to.have.length(0);

      const receipt = await mailbox.waitFor(
        'jane.applicant@example.test',
        /^Your application for Red Team Operator$/,
      );
      // Nothing the applicant typed is mailed back to the address they typed.
      expect(receipt.text).not.to.include('script');
      expect(receipt.text).not.to.include('Hire me');
      await waitForMailed(applicationId);
    });

    async function waitForMailed(applicationId: string) {
      for (let i = 0; i < 200; i++) {
        const { rows } = await db.query('select staff_mailed_at from job_applications where id = $1', [
          applicationId,
        ]);
        if (rows[0]?.staff_mailed_at) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error('staff_mailed_at was not set');
    }

    it('refuses a resume used by another application, also when two race for it', async () => {
      const resumeId = await newResume();
      const first = await call('POST', `/careers/${jobs.red!.id}/apply`, applicant(resumeId));
      expect(first.status).to.equal(201);
      ip = '10.2.0.1';
      const again = await call('POST', `/careers/${jobs.platform!.id}/apply`, applicant(resumeId));
      expect(again.status).to.equal(409);
      expect(again.body.message).to.equal(M.resumeUnusable);

      ip = '10.2.0.2';
      const contested = await newResume();
      const before = await applications();
      const answers = await Promise.all(
        [jobs.red!, jobs.platform!, jobs.intern!].map((job, i) =>
          call('POST', `/careers/${job.id}/apply`, applicant(contested, { email: `racer${i}@example.test` })),
        ),
      );
      expect(answers.map((a) => a.status).sort()).to.deep.equal([201, 409, 409]);
      // The losers' applications were rolled back with their claim.
      expect(await applications()).to.equal(before + 1);
    });

    it('refuses a resume that is unknown or expired', async () => {
      const unknown = await call(
        'POST',
        `/careers/${jobs.red!.id}/apply`,
        applicant('00000000-0000-4000-8000-000000000000'),
      );
      expect(unknown.status).to.equal(409);
      expect(unknown.body.message).to.equal(M.resumeUnusable);
      const resumeId = await newResume();
      await db.query("update resume_uploads set expires_at = now() - interval '1 second' where id = $1", [
        resumeId,
      ]);
      const expired = await call('POST', `/careers/${jobs.red!.id}/apply`, applicant(resumeId));
      expect(expired.status).to.equal(409);
    });

    it('refuses applications to a closed or unknown job, and the resume stays usable', async () => {
      const resumeId = await newResume();
      const closed = await call('POST', `/careers/${jobs.closed!.id}/apply`, applicant(resumeId));
      expect(closed.status).to.equal(409);
      expect(closed.body.message).to.equal(M.jobClosed);
      const unknown = await call(
        'POST',
        '/careers/11111111-1111-4111-8111-111111111111/apply',
        applicant(resumeId),
      );
      expect(unknown.status).to.equal(404);
      expect((await call('POST', '/careers/not-a-uuid/apply', applicant(resumeId))).status).to.equal(400);
      expect((await call('POST', `/careers/${jobs.red!.id}/apply`, applicant(resumeId))).status).to.equal(
        201,
      );
    });

    it('throttles applications per client address and per applicant address', async () => {
      const resumes: string[] = [];
      for (let i = 0; i < 7; i++) resumes.push(await newResume());
      for (let i = 0; i < 5; i++) {
        const answer = await call(
          'POST',
          `/careers/${jobs.red!.id}/apply`,
          applicant(resumes[i]!, { email: `throttled${i}@example.test` }),
        );
        expect(answer.status).to.equal(201);
      }
      const refused = await call(
        'POST',
        `/careers/${jobs.red!.id}/apply`,
        applicant(resumes[5]!, { email: 'throttled5@example.test' }),
      );
      expect(refused.status).to.equal(429);
      expect(refused.body.message).to.match(/^Too many applications sent from your network/);
      expect(Number(refused.headers.get('retry-after'))).to.be.above(0);

      // One typed-in address gets at most 5 acknowledgements a day, from any network.
      for (let i = 0; i < 5; i++) {
        ip = `10.3.0.${i + 1}`;
        const resumeId = await newResume();
        const answer = await call(
          'POST',
          `/careers/${jobs.red!.id}/apply`,
          applicant(resumeId, { email: 'same.person@example.test' }),
        );
        expect(answer.status).to.equal(201);
      }
      ip = '10.3.0.99';
      const sixth = await call(
        'POST',
        `/careers/${jobs.red!.id}/apply`,
        applicant(await newResume(), { email: 'Same.Person@example.test' }),
      );
      expect(sixth.status).to.equal(429);
      expect(sixth.body.message).to.match(/^Too many applications from this email address today/);
      // A +tag reaches the same mailbox: it is the same address to the throttle.
      ip = '10.3.0.98';
      const tagged = await call(
        'POST',
        `/careers/${jobs.red!.id}/apply`,
        applicant(await newResume(), { email: 'same.person+again@example.test' }),
      );
      expect(tagged.status).to.equal(429);
    });

    it('counts an applicant’s address only for applications that were taken: nobody is locked out in their name', async () => {
      const victim = 'candidate@example.test';
      for (let i = 0; i < 6; i++) {
        ip = `10.4.0.${i + 1}`;
        const answer = await call(
          'POST',
          '/careers/11111111-1111-4111-8111-111111111111/apply',
          applicant(await newResume(), { email: victim }),
        );
        expect(answer.status).to.equal(404);
      }
      ip = '10.4.0.50';
      const real = await call(
        'POST',
        `/careers/${jobs.red!.id}/apply`,
        applicant(await newResume(), { email: victim }),
      );
      expect(real.status).to.equal(201);
    });

    it('refuses control characters a terminal would act on (C1 included) in what staff read', async () => {
      const resumeId = await newResume();
      for (const field of ['firstName', 'lastName', 'location'])
        expect(
          (
            await call(
              'POST',
              `/careers/${jobs.red!.id}/apply`,
              applicant(resumeId, { [field]: 'Eve\u009b31mRED' }),
            )
          ).status,
          field,
        ).to.equal(400);
      expect(
        (
          await call(
            'POST',
            `/careers/${jobs.red!.id}/apply`,
            applicant(resumeId, { coverLetter: 'hello \u009d0;owned\u009c' }),
          )
        ).status,
      ).to.equal(400);
    });
  });
});

describe('careers: a mail server that is down loses no application', function () {
  this.timeout(60_000);
  let platform: TestPlatform;
  let db: pg.Client;

  before(async () => {
    // Nothing listens on port 9 of loopback: every mail fails.
    platform = await startTestPlatform({ env: { SMTP_URL: 'smtp://127.0.0.1:9', CAREERS_EMAIL } });
    db = new pg.Client({ connectionString: platform.databaseUrl });
    await db.connect();
  });
  after(async () => {
    await db?.end();
    await platform?.close();
  });

  it('stores the application and leaves it listed as not mailed', async () => {
    const job = await publishJob(db, { job: baseJob(), actor: 'test' });
    const form = new FormData();
    form.append('resume', new Blob([new Uint8Array(minimalPdf())]), 'cv.pdf');
    const upload = await fetch(`${platform.baseUrl}/api/v1/careers/resumes`, { method: 'POST', body: form });
    const { resumeId } = (await upload.json()) as { resumeId: string };
    const res = await fetch(`${platform.baseUrl}/api/v1/careers/${job.id}/apply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ firstName: 'Jane', lastName: 'Doe', email: 'jane@example.test', resumeId }),
    });
    expect(res.status).to.equal(201);
    const { applicationId } = (await res.json()) as { applicationId: string };
    // The failed sends are logged; the row stays, without staff_mailed_at.
    await new Promise((r) => setTimeout(r, 500));
    const { rows } = await db.query('select staff_mailed_at from job_applications where id = $1', [
      applicationId,
    ]);
    expect(rows).to.have.length(1);
    expect(rows[0].staff_mailed_at).to.equal(null);
  });
});
