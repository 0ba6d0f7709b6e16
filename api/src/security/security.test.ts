import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import * as openpgp from 'openpgp';
import pg from 'pg';
import { pino } from 'pino';
import {
  TRACKING_ID_PATTERN,
  UNDISCLOSED_FINDING_TITLE,
  VULNERABILITY_CATEGORIES,
  VULNERABILITY_REPORT_LIMITS as LIMITS,
  VULNERABILITY_REPORT_MESSAGES as M,
  type HallOfFame,
} from '../contracts/index.ts';
import { Sealer } from '../crypto/sealer.ts';
import { NUL_MESSAGE } from '../http/nul.ts';
import { startPlatform } from '../server.ts';
import {
  openTestDatabase,
  startTestPlatform,
  testConfig,
  testLogger,
  type TestPlatform,
} from '../testing/fixtures.ts';
import { Mailbox } from '../testing/mailbox.ts';
import { createTestDatabase } from '../testing/setup.ts';
import { SECURITY_KEY_PURPOSE, loadSecurityKey } from './pgp-key.ts';
import { SecurityTxt } from './security-txt.ts';
import { newTrackingId, normaliseTrackingId } from './tracking.ts';

const SECURITY_EMAIL = 'security-team@grid.test';
const DAY_MS = 24 * 60 * 60 * 1000;

describe('security disclosure: vulnerability reports, the hall of fame, the key and security.txt', function () {
  let platform: TestPlatform;
  let mailbox: Mailbox;
  let db: pg.Client;
  let portalDist: string;
  let counter = 0;
  let ip: string;

  before(async () => {
    mailbox = new Mailbox();
    // A built portal of one page: its fallback must not answer the security files.
    portalDist = await mkdtemp(path.join(os.tmpdir(), 'eg-security-portal-'));
    await writeFile(path.join(portalDist, 'index.html'), '<!doctype html><title>portal</title>');
    platform = await startTestPlatform({
      env: {
        SMTP_URL: await mailbox.start(),
        // Behind a (pretend) proxy on loopback: each test speaks from an address of its own.
        TRUST_PROXY: 'loopback',
        SECURITY_EMAIL,
        PUBLIC_URL: 'https://grid.test',
        PORTAL_DIST: portalDist,
      },
    });
    db = new pg.Client({ connectionString: platform.databaseUrl });
    await db.connect();
  });
  after(async () => {
    await db?.end();
    await platform?.close();
    await mailbox?.stop();
    if (portalDist) await rm(portalDist, { recursive: true, force: true });
  });
  beforeEach(() => {
    counter += 1;
    ip = `198.51.100.${counter}`;
  });

  const valid = () => ({
    reporterName: 'Grace Hopper',
    reporterEmail: `grace${counter}@example.com`,
    reporterHandle: 'amazing_grace',
    reporterWebsite: 'https://grace.example.com',
    reporterTwitter: 'https://twitter.com/grace',
    reporterLinkedIn: 'https://www.linkedin.com/in/grace',
    isAnonymous: false,
    title: 'Stored XSS in the global chat',
    description: 'The global chat renders <img src=x onerror=alert(1)> as HTML.',
    severity: 'HIGH',
    category: 'XSS',
    affectedUrl: 'https://grid.test/chats',
    affectedVersion: '0.1.0',
    reproductionSteps: '1. Sign in\n2. Send <img src=x onerror=alert(1)>\n3. Watch others run it',
    proofOfConcept: '<img src=x onerror=alert(document.domain)>',
    impactAssessment: 'Session theft of every player in the chat.',
    suggestedFix: 'Render messages as text.',
    referralSource: 'https://news.example.com/bug-bounties',
  });

  async function report(body: unknown, from = ip) {
    const res = await fetch(`${platform.baseUrl}/api/v1/security/vulnerability-report`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: (await res.json()) as Record<string, unknown>,
    };
  }

  const reportsStored = async () =>
    Number((await db.query('select count(*) from vulnerability_reports')).rows[0].count);
  const row = async (trackingId: string) =>
    (await db.query('select * from vulnerability_reports where tracking_id = $1', [trackingId])).rows[0] as
      Record<string, unknown> | undefined;

  describe('POST /security/vulnerability-report', () => {
    it('stores every field, mails the security team everything (escaped), and acknowledges the reporter', async () => {
      const sent = valid();
      const answer = await report(sent);
      expect(answer.status).to.equal(200);
      expect(Object.keys(answer.body)).to.deep.equal(['trackingId']);
      const trackingId = String(answer.body.trackingId);
      expect(trackingId).to.match(TRACKING_ID_PATTERN);

      const stored = (await row(trackingId))!;
      expect(stored).to.include({
        status: 'NEW',
        is_anonymous: false,
        reporter_name: sent.reporterName,
        reporter_email: sent.reporterEmail,
        reporter_handle: sent.reporterHandle,
        reporter_website: sent.reporterWebsite,
        reporter_twitter: sent.reporterTwitter,
        reporter_linkedin: sent.reporterLinkedIn,
        referral_source: sent.referralSource,
        title: sent.title,
        description: sent.description,
        reported_severity: 'HIGH',
        category: 'XSS',
        affected_url: sent.affectedUrl,
        affected_version: sent.affectedVersion,
        reproduction_steps: sent.reproductionSteps,
        proof_of_concept: sent.proofOfConcept,
        impact_assessment: sent.impactAssessment,
        suggested_fix: sent.suggestedFix,
        severity: null,
      });
      // The sender's address is counted by the throttle, never kept with the report.
      expect(JSON.stringify(stored)).not.to.include(ip);

      const staff = await mailbox.waitFor(SECURITY_EMAIL, new RegExp(`^\\[${trackingId}\\] HIGH XSS`));
      expect(staff.subject).to.include(sent.title);
      expect(staff.replyTo?.text).to.equal(sent.reporterEmail);
      for (const value of [
        sent.reporterName,
        sent.reporterEmail,
        sent.reporterHandle,
        sent.reporterWebsite,
        sent.reporterTwitter,
        sent.reporterLinkedIn,
        sent.referralSource,
        sent.affectedUrl,
        sent.affectedVersion,
        sent.description,
        sent.reproductionSteps,
        sent.proofOfConcept,
        sent.impactAssessment,
        sent.suggestedFix,
      ])
        expect(staff.text, value).to.include(value);
      // The reporter's words are text in the staff mail, never markup.
      expect(staff.html).to.include('&lt;img src=x onerror=alert(document.domain)&gt;');
      expect(staff.html).not.to.include('<img');

      const ack = await mailbox.waitFor(sent.reporterEmail, /^Vulnerability report received/);
      expect(ack.subject).to.include(trackingId);
      expect(ack.text).to.include(trackingId).and.include('24-48 hours');
      // Nothing the sender typed: the acknowledgement cannot carry a stranger's words to a stranger.
      for (const typed of [sent.reporterName, 'XSS', 'chat', 'img'])
        expect(`${ack.subject} ${ack.text}`).not.to.include(typed);

      const mailed = (await row(trackingId))!;
      expect(mailed.staff_mailed_at).to.be.instanceOf(Date);
      expect(mailed.acknowledged_at).to.be.instanceOf(Date);
    });

    it('keeps nothing of an anonymous reporter, not even fields that were sent, and acknowledges nobody', async () => {
      const sent = { ...valid(), isAnonymous: true };
      const answer = await report(sent);
      expect(answer.status).to.equal(200);
      const trackingId = String(answer.body.trackingId);
      const stored = (await row(trackingId))!;
      expect(stored).to.include({
        is_anonymous: true,
        reporter_name: null,
        reporter_email: null,
        reporter_handle: null,
        reporter_website: null,
        reporter_twitter: null,
        reporter_linkedin: null,
        referral_source: null,
        title: sent.title,
      });

      const staff = await mailbox.waitFor(SECURITY_EMAIL, new RegExp(trackingId));
      expect(staff.text).to.include('Anonymous report');
      expect(staff.replyTo).to.equal(undefined);
      for (const value of [
        sent.reporterName,
        sent.reporterEmail,
        'amazing_grace',
        'grace.example',
        'news.example',
      ])
        expect(`${staff.text} ${staff.html}`, value).not.to.include(value);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(mailbox.to(sent.reporterEmail)).to.deep.equal([]);
      expect((await row(trackingId))!.acknowledged_at).to.equal(null);

      // Anonymous, the reporter fields are not needed at all.
      const bare = await report({
        isAnonymous: true,
        title: 'Open redirect on login',
        description: 'd',
        category: 'Other',
        reproductionSteps: 'r',
        impactAssessment: 'i',
      });
      expect(bare.status, JSON.stringify(bare.body)).to.equal(200);
    });

    it('defaults the severity to MEDIUM and isAnonymous to false, and takes empty optional fields as absent', async () => {
      const { severity: _s, isAnonymous: _a, ...sent } = valid();
      const answer = await report({ ...sent, affectedUrl: '', proofOfConcept: '  ', reporterTwitter: '' });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      const stored = (await row(String(answer.body.trackingId)))!;
      expect(stored).to.include({
        reported_severity: 'MEDIUM',
        is_anonymous: false,
        affected_url: null,
        proof_of_concept: null,
        reporter_twitter: null,
      });
    });

    it('answers tracking ids that are random, unguessable and never sequential', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 3; i += 1) {
        const answer = await report(valid(), `10.4.${counter}.${i}`);
        expect(answer.status).to.equal(200);
        ids.add(String(answer.body.trackingId));
      }
      expect(ids.size).to.equal(3);
      const generated = Array.from({ length: 2000 }, newTrackingId);
      expect(new Set(generated).size).to.equal(2000);
      for (const id of generated.slice(0, 50)) expect(id).to.match(TRACKING_ID_PATTERN);
      // Every symbol of the alphabet turns up in every position: no counter, no clock inside.
      const symbols = generated.map((id) => id.slice(6).replace(/-/g, ''));
      for (let position = 0; position < 16; position += 1)
        expect(new Set(symbols.map((s) => s[position])).size, `position ${position}`).to.equal(32);
    });

    it('reads a tracking id typed loosely, and nothing that is not one', () => {
      const id = newTrackingId();
      expect(normaliseTrackingId(id)).to.equal(id);
      expect(normaliseTrackingId(id.toLowerCase())).to.equal(id);
      expect(normaliseTrackingId(id.slice(6))).to.equal(id);
      expect(normaliseTrackingId(` ${id.replace(/-/g, ' ')} `)).to.equal(id);
      expect(normaliseTrackingId('EG-VR-0O1I-L000-0000-0000')).to.equal('EG-VR-0011-1000-0000-0000');
      for (const bad of ['', 'EG-VR-', 'EG-VR-AAAA-AAAA-AAAA', 'EG-VR-AAAA-AAAA-AAAA-AAAU', "1' or '1'='1"])
        expect(normaliseTrackingId(bad), bad).to.equal(null);
    });

    it('refuses every field that breaks a rule, naming it, and stores and mails nothing', async () => {
      const before = await reportsStored();
      const mails = mailbox.messages.length;
      const tooLong = (field: keyof typeof LIMITS, n = LIMITS[field] + 1) => 'a'.repeat(n);
      const cases: [Record<string, unknown>, string][] = [
        // Required, and what staff need to triage.
        ...(['title', 'description', 'reproductionSteps', 'impactAssessment', 'category'] as const).map(
          (field): [Record<string, unknown>, string] => [{ [field]: undefined }, `${field}:`],
        ),
        [{ title: '   ' }, `title: ${M.titleRequired}`],
        [{ title: 'XSS' }, `title: ${M.titleTooShort}`],
        [{ description: '\n \n' }, `description: ${M.descriptionRequired}`],
        [{ reproductionSteps: '' }, `reproductionSteps: ${M.reproductionStepsRequired}`],
        [{ impactAssessment: ' ' }, `impactAssessment: ${M.impactAssessmentRequired}`],
        // The reporter, unless anonymous.
        [{ reporterName: undefined }, `reporterName: ${M.reporterNameRequired}`],
        [{ reporterName: '  ' }, `reporterName: ${M.reporterNameRequired}`],
        [{ reporterEmail: undefined }, `reporterEmail: ${M.reporterEmailRequired}`],
        [{ reporterEmail: 'not-an-address' }, `reporterEmail: ${M.reporterEmailInvalid}`],
        [
          { reporterEmail: 'a@example.com\r\nBcc: victim@example.com' },
          `reporterEmail: ${M.reporterEmailInvalid}`,
        ],
        [{ reporterEmail: `${'a'.repeat(250)}@example.com` }, `reporterEmail: ${M.reporterEmailInvalid}`],
        // The enumerations, exactly.
        [{ severity: 'SEVERE' }, `severity: ${M.severity}`],
        [{ severity: 'high' }, `severity: ${M.severity}`],
        [{ category: 'xss' }, `category: ${M.category}`],
        [{ category: 'Phishing' }, `category: ${M.category}`],
        // Forged types.
        [{ isAnonymous: 'true' }, `isAnonymous: ${M.anonymous}`],
        [{ title: 42 }, 'title:'],
        [{ description: ['a'] }, 'description:'],
        [{ reporterHandle: { $ne: null } }, 'reporterHandle:'],
        [{ trackingId: 'EG-VR-AAAA-AAAA-AAAA-AAAA' }, 'Unknown field in request body: trackingId.'],
        [{ status: 'ACCEPTED' }, 'Unknown field in request body: status.'],
        // One line where a line is meant; plain text everywhere.
        [{ title: 'Bug\r\nBcc: victim@example.com' }, `title: Title ${M.singleLine}`],
        [{ reporterName: 'Grace\u001b]0;owned\u0007' }, `reporterName: Name ${M.singleLine}`],
        [{ description: 'ring \u001b[31m the terminal' }, `description: Description ${M.plainText}`],
        [{ impactAssessment: 'C1 \u009b31m too' }, `impactAssessment: Impact assessment ${M.plainText}`],
        [{ reporterHandle: 'grace\u0085' }, `reporterHandle: Handle ${M.singleLine}`],
        // Bounded.
        [{ title: tooLong('title') }, `title: Title must be at most ${LIMITS.title} characters`],
        [{ description: tooLong('description') }, 'description: Description must be at most'],
        [
          { reproductionSteps: tooLong('reproductionSteps') },
          'reproductionSteps: Steps to reproduce must be at most',
        ],
        [{ proofOfConcept: tooLong('proofOfConcept') }, 'proofOfConcept: Proof of concept must be at most'],
        [
          { impactAssessment: tooLong('impactAssessment') },
          'impactAssessment: Impact assessment must be at most',
        ],
        [{ suggestedFix: tooLong('suggestedFix') }, 'suggestedFix: Suggested fix must be at most'],
        [{ reporterName: tooLong('reporterName') }, 'reporterName: Name must be at most'],
        [{ reporterHandle: tooLong('reporterHandle') }, 'reporterHandle: Handle must be at most'],
        [
          { affectedVersion: tooLong('affectedVersion') },
          'affectedVersion: Affected version must be at most',
        ],
        [
          { affectedUrl: `https://grid.test/${tooLong('affectedUrl')}` },
          'affectedUrl: Affected URL must be at most',
        ],
        [
          { reporterWebsite: `https://grace.example.com/${tooLong('profileUrl')}` },
          'reporterWebsite: Website must be at most',
        ],
      ];
      // URLs, http and https only, all five of them.
      for (const [field, what] of [
        ['reporterWebsite', 'Website'],
        ['reporterTwitter', 'Twitter'],
        ['reporterLinkedIn', 'LinkedIn'],
        ['referralSource', 'Referral source'],
        ['affectedUrl', 'Affected URL'],
      ] as const)
        for (const bad of [
          'javascript:alert(1)',
          'data:text/html,<script>alert(1)</script>',
          'ftp://files.example.com/x',
          'file:///etc/passwd',
          'grace.example.com',
          'not a url',
          'http://',
          'https://exa mple.com/',
          '//grace.example.com',
        ])
          cases.push([{ [field]: bad }, `${field}: ${what} ${M.url}`]);

      for (const [change, message] of cases) {
        const answer = await report({ ...valid(), ...change });
        expect(answer.status, JSON.stringify(change)).to.equal(400);
        expect(String(answer.body.message), JSON.stringify(change)).to.include(message);
      }
      for (const field of ['title', 'description', 'reporterName', 'proofOfConcept']) {
        const nul = await report({ ...valid(), [field]: 'a\u0000b' });
        expect(nul.status, field).to.equal(400);
        expect(nul.body.message).to.equal(NUL_MESSAGE);
      }
      expect((await report('{"title":')).status).to.equal(400);
      expect((await report('[]')).status).to.equal(400);
      // Past the API's body limit as a whole.
      expect((await report({ ...valid(), description: 'a'.repeat(200_000) })).status).to.equal(413);
      expect(await reportsStored()).to.equal(before);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(mailbox.messages.length).to.equal(mails);
    });

    it('takes a report at every limit: the longest of each field fits the API body limit', async () => {
      const answer = await report({
        ...valid(),
        title: 't'.repeat(LIMITS.title),
        description: 'd'.repeat(LIMITS.description),
        reproductionSteps: 'r'.repeat(LIMITS.reproductionSteps),
        proofOfConcept: 'p'.repeat(LIMITS.proofOfConcept),
        impactAssessment: 'i'.repeat(LIMITS.impactAssessment),
        suggestedFix: 's'.repeat(LIMITS.suggestedFix),
        reporterName: 'n'.repeat(LIMITS.reporterName),
        reporterHandle: 'h'.repeat(LIMITS.reporterHandle),
        affectedVersion: 'v'.repeat(LIMITS.affectedVersion),
        affectedUrl: `https://grid.test/${'u'.repeat(LIMITS.affectedUrl - 18)}`,
      });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    });

    it('takes every category of the spec', async () => {
      // Anonymous: no acknowledgement counts against one address.
      for (const [i, category] of VULNERABILITY_CATEGORIES.entries()) {
        const answer = await report({ ...valid(), isAnonymous: true, category }, `10.1.${counter}.${i}`);
        expect(answer.status, category).to.equal(200);
      }
    });

    it('throttles one network at 5 reports an hour (429 with Retry-After), storing nothing more', async () => {
      for (let i = 0; i < 5; i += 1) expect((await report(valid())).status).to.equal(200);
      const before = await reportsStored();
      const sixth = await report(valid());
      expect(sixth.status).to.equal(429);
      expect(Number(sixth.retryAfter)).to.be.greaterThan(0);
      expect(sixth.body.message).to.match(
        /^Too many vulnerability reports sent from your network\. Try again in \d+ minutes\.$/,
      );
      expect(await reportsStored()).to.equal(before);
      // Another network is not held back.
      expect((await report(valid(), `198.51.100.${counter + 100}`)).status).to.equal(200);
    });

    it('acknowledges one typed-in address 3 times a day, and still stores and forwards the reports after that', async () => {
      const victim = `victim${counter}@example.com`;
      const ids: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        const answer = await report({ ...valid(), reporterEmail: victim }, `10.2.${counter}.${i}`);
        expect(answer.status).to.equal(200);
        ids.push(String(answer.body.trackingId));
      }
      for (const id of ids) await mailbox.waitFor(SECURITY_EMAIL, new RegExp(id));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(mailbox.to(victim)).to.have.length(3);
      expect((await row(ids[3]!))!.acknowledged_at).to.equal(null);
    });
  });

  describe('a mail server that is down', () => {
    it('loses no report: it is stored, answered, and the failure logged', async () => {
      const lines: string[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
      const database = await createTestDatabase();
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eg-security-down-'));
      const down = await startPlatform(
        testConfig({
          DATABASE_URL: database.url,
          DATA_DIR: dataDir,
          SMTP_URL: 'smtp://127.0.0.1:9',
          PORTAL_DIST: path.join(dataDir, 'no-portal'),
        }),
        logger,
      );
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const res = await fetch(`${down.url}/api/v1/security/vulnerability-report`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(valid()),
        });
        expect(res.status).to.equal(200);
        const { trackingId } = (await res.json()) as { trackingId: string };
        const { rows } = await client.query('select * from vulnerability_reports where tracking_id = $1', [
          trackingId,
        ]);
        expect(rows[0]).to.include({ title: valid().title, staff_mailed_at: null, acknowledged_at: null });
        const failures = lines.filter((l) => l.includes('Could not mail a vulnerability report'));
        expect(failures).to.have.length(2);
        expect(failures[0]).to.include(trackingId);
        // The log says which report, not what it says or who sent it.
        for (const line of failures) expect(line).not.to.include('onerror').and.not.to.include('grace');
      } finally {
        await client.end();
        await down.close();
        await database.drop();
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  });

  describe('GET /security/hall-of-fame', () => {
    let made = 0;
    async function accepted(
      change: Record<string, unknown>,
      state: { status: 'NEW' | 'ACCEPTED' | 'REJECTED' | 'FIXED'; severity?: string; publicTitle?: string },
      createdAt: string,
    ): Promise<string> {
      const answer = await report({ ...valid(), ...change }, `10.3.${counter}.${(made += 1)}`);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      const trackingId = String(answer.body.trackingId);
      await db.query(
        `update vulnerability_reports
            set status = $2, severity = $3, public_title = $4, created_at = $5,
                accepted_at = case when $2 in ('ACCEPTED', 'FIXED') then now() end,
                fixed_at = case when $2 = 'FIXED' then now() end,
                rejected_at = case when $2 = 'REJECTED' then now() end,
                rejection_reason = case when $2 = 'REJECTED' then 'duplicate' end
          where tracking_id = $1`,
        [trackingId, state.status, state.severity ?? null, state.publicTitle ?? null, createdAt],
      );
      return trackingId;
    }

    const hallOfFame = async () => {
      const res = await fetch(`${platform.baseUrl}/api/v1/security/hall-of-fame`);
      expect(res.status).to.equal(200);
      return { text: await res.clone().text(), body: (await res.json()) as HallOfFame };
    };

    it('is empty before staff accept anything', async () => {
      const { body } = await hallOfFame();
      expect(body).to.deep.equal({
        researchers: [],
        stats: { totalResearchers: 0, totalReports: 0, criticalFindingsCount: 0 },
      });
    });

    it('shows only accepted and fixed findings of named researchers, grouped by address, with no address in it', async () => {
      const ada = 'Ada.Lovelace@Example.com';
      const linus = 'linus@example.org';
      await accepted(
        {
          reporterEmail: ada,
          reporterName: 'Ada L.',
          reporterHandle: 'old_handle',
          title: 'First ada finding',
        },
        { status: 'FIXED', severity: 'CRITICAL', publicTitle: 'Privilege escalation in box reset' },
        '2026-01-01T10:00:00Z',
      );
      await accepted(
        {
          reporterEmail: ada.toLowerCase(),
          reporterName: 'Ada Lovelace',
          reporterHandle: 'ada',
          title: 'Raw title of a fixed bug',
        },
        { status: 'FIXED', severity: 'HIGH' },
        '2026-02-01T10:00:00Z',
      );
      await accepted(
        {
          reporterEmail: ada.toUpperCase(),
          reporterName: 'Ada Lovelace',
          reporterHandle: 'ada',
          title: 'SQLi in /leaderboard?sort= still open',
        },
        { status: 'ACCEPTED', severity: 'CRITICAL', publicTitle: 'SQL injection' },
        '2026-03-01T10:00:00Z',
      );
      await accepted(
        {
          reporterEmail: ada,
          reporterName: 'Ada Lovelace',
          reporterHandle: 'ada',
          title: 'Another open one',
        },
        { status: 'ACCEPTED', severity: 'LOW' },
        '2026-03-02T10:00:00Z',
      );
      await accepted(
        { reporterEmail: linus, reporterName: 'Linus', reporterHandle: undefined, title: 'Linus finding' },
        { status: 'ACCEPTED', severity: 'MEDIUM' },
        '2026-02-15T10:00:00Z',
      );
      // Not public: new, rejected, anonymous.
      await accepted(
        { reporterEmail: 'nobody@example.net', title: 'New one' },
        { status: 'NEW' },
        '2026-03-03T10:00:00Z',
      );
      await accepted(
        { reporterEmail: 'rejected@example.net', title: 'Rejected one' },
        { status: 'REJECTED' },
        '2026-03-04T10:00:00Z',
      );
      await accepted(
        { isAnonymous: true, title: 'Anonymous critical' },
        { status: 'FIXED', severity: 'CRITICAL' },
        '2026-03-05T10:00:00Z',
      );

      const { text, body } = await hallOfFame();
      // Only fixed critical findings count: an open one is nobody's business yet.
      expect(body.stats).to.deep.equal({ totalResearchers: 2, totalReports: 5, criticalFindingsCount: 1 });
      expect(body.researchers.map((r) => r.name)).to.deep.equal(['Ada Lovelace', 'Linus']);
      const [first, second] = body.researchers;
      expect(first).to.include({
        name: 'Ada Lovelace',
        handle: 'ada',
        avatar: null,
        totalReports: 4,
        firstSubmissionDate: '2026-01-01T10:00:00.000Z',
      });
      expect(
        first!.recentVulnerabilities.map((v) => [v.title, v.status, v.severity, v.submittedAt]),
      ).to.deep.equal([
        [UNDISCLOSED_FINDING_TITLE, 'ACCEPTED', null, '2026-03-02T10:00:00.000Z'],
        [UNDISCLOSED_FINDING_TITLE, 'ACCEPTED', null, '2026-03-01T10:00:00.000Z'],
        ['Raw title of a fixed bug', 'FIXED', 'HIGH', '2026-02-01T10:00:00.000Z'],
        ['Privilege escalation in box reset', 'FIXED', 'CRITICAL', '2026-01-01T10:00:00.000Z'],
      ]);
      expect(second).to.include({ name: 'Linus', handle: null, totalReports: 1 });
      expect(second!.id).not.to.equal(first!.id);
      // Addresses, unfixed titles, rejected and anonymous reports and the reporters' links are not in it.
      for (const hidden of [
        'example.com',
        'example.org',
        'example.net',
        'lovelace@',
        'SQLi',
        'SQL injection',
        'still open',
        'Another open one',
        'First ada finding',
        'Rejected one',
        'New one',
        'Anonymous critical',
        'grace.example.com',
        'news.example.com',
        'twitter.com',
        'EG-VR-',
      ])
        expect(text, hidden).not.to.include(hidden);
      // Stable ids: the same researcher keeps one.
      expect((await hallOfFame()).body.researchers[0]!.id).to.equal(first!.id);
    });
  });

  describe('the OpenPGP key and security.txt', () => {
    it('serves the public key at /pgp-key.asc, with no secret key material, before the portal fallback', async () => {
      const res = await fetch(`${platform.baseUrl}/pgp-key.asc`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/pgp-keys(;|$)/);
      const armored = await res.text();
      expect(armored).to.match(/^-----BEGIN PGP PUBLIC KEY BLOCK-----\n/);
      expect(armored).not.to.match(/PRIVATE|SECRET/i);
      const key = await openpgp.readKey({ armoredKey: armored });
      expect(key.isPrivate()).to.equal(false);
      expect(key.getUserIDs()).to.deep.equal([`Exploit Grid Security <${SECURITY_EMAIL}>`]);
      expect(await key.getSigningKey()).to.not.equal(undefined);
      expect(await key.getEncryptionKey()).to.not.equal(undefined);
      // Packet by packet (readKey parses secret key packets too): public keys, user ids, signatures, and no
      // secret key packet, whatever the armor says.
      const packets = key.toPacketList();
      expect(packets.length).to.be.greaterThan(3);
      for (const packet of packets) {
        expect(packet).not.to.be.instanceOf(openpgp.SecretKeyPacket);
        expect(packet).not.to.be.instanceOf(openpgp.SecretSubkeyPacket);
      }
      // The database holds the private half sealed: nothing readable.
      const stored = await db.query('select * from platform_keys');
      expect(stored.rows).to.have.length(1);
      expect(stored.rows[0].purpose).to.equal(SECURITY_KEY_PURPOSE);
      expect(stored.rows[0].fingerprint).to.equal(key.getFingerprint());
      expect(stored.rows[0].sealed_private_key).not.to.include('PGP');
      expect(stored.rows[0].public_key).not.to.match(/PRIVATE/);

      const head = await fetch(`${platform.baseUrl}/pgp-key.asc`, { method: 'HEAD' });
      expect(head.status).to.equal(200);
      expect(head.headers.get('content-type')).to.match(/^application\/pgp-keys/);
      // The portal is served, and still answers its own pages.
      expect(await (await fetch(`${platform.baseUrl}/security`)).text()).to.include('<title>portal</title>');
    });

    it('serves security.txt with every RFC 9116 field, cleartext-signed by that key', async () => {
      const res = await fetch(`${platform.baseUrl}/.well-known/security.txt`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      const signed = await res.text();
      expect(signed).to.match(/^-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA\d+\n\n/);
      expect(signed).to.match(/-----BEGIN PGP SIGNATURE-----\n[\s\S]+-----END PGP SIGNATURE-----\n?$/);

      const armoredKey = await (await fetch(`${platform.baseUrl}/pgp-key.asc`)).text();
      const verification = await openpgp.verify({
        message: await openpgp.readCleartextMessage({ cleartextMessage: signed }),
        verificationKeys: await openpgp.readKey({ armoredKey }),
        expectSigned: true,
      });
      await verification.signatures[0]!.verified;
      const body = verification.data;

      // A forged copy (one field changed) does not verify.
      const forged = signed.replace(`mailto:${SECURITY_EMAIL}`, 'mailto:attacker@evil.test');
      let forgedVerified = true;
      try {
        const v = await openpgp.verify({
          message: await openpgp.readCleartextMessage({ cleartextMessage: forged }),
          verificationKeys: await openpgp.readKey({ armoredKey }),
          expectSigned: true,
        });
        await v.signatures[0]!.verified;
      } catch {
        forgedVerified = false;
      }
      expect(forgedVerified).to.equal(false);

      const fields = body
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .map((l) => l.split(/: (.*)/s).slice(0, 2) as [string, string]);
      const values = (name: string) => fields.filter(([n]) => n === name).map(([, v]) => v);
      expect(values('Contact')).to.deep.equal([`mailto:${SECURITY_EMAIL}`, 'https://grid.test/security']);
      expect(values('Encryption')).to.deep.equal(['https://grid.test/pgp-key.asc']);
      expect(values('Policy')).to.deep.equal(['https://grid.test/security-policy']);
      expect(values('Acknowledgments')).to.deep.equal(['https://grid.test/security/hall-of-fame']);
      expect(values('Preferred-Languages')).to.deep.equal(['en']);
      expect(values('Canonical')).to.deep.equal(['https://grid.test/.well-known/security.txt']);
      const expires = values('Expires');
      expect(expires).to.have.length(1);
      expect(expires[0]).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const until = Date.parse(expires[0]!);
      // Less than a year ahead (RFC 9116 section 2.5.5), about half a year.
      expect(until - Date.now()).to.be.within(179 * DAY_MS, 181 * DAY_MS);
      // No field the RFC does not define.
      const known = [
        'Contact',
        'Expires',
        'Encryption',
        'Acknowledgments',
        'Preferred-Languages',
        'Canonical',
        'Policy',
      ];
      for (const [name] of fields) expect(known, name).to.include(name);
    });

    it('signs again once a day, so Expires moves on', async () => {
      const key = await loadSecurityKey({
        orm: platform.orm,
        sealer: new Sealer(await secretOf(platform), SECURITY_KEY_PURPOSE),
        securityEmail: SECURITY_EMAIL,
        logger: testLogger,
      });
      let now = Date.now();
      const txt = new SecurityTxt({
        key,
        publicUrl: 'https://grid.test',
        securityEmail: SECURITY_EMAIL,
        now: () => now,
      });
      const expiresOf = (text: string) => Date.parse(/^Expires: (.*)$/m.exec(text)![1]!);
      const first = await txt.text();
      now += 60 * 60 * 1000;
      expect(await txt.text()).to.equal(first);
      now += DAY_MS;
      const second = await txt.text();
      expect(expiresOf(second) - expiresOf(first)).to.be.within(DAY_MS, DAY_MS + 60 * 60 * 1000 + 1000);
    });
  });

  describe('the key on its own', () => {
    it('is generated once when replicas start together: every one keeps the first stored', async () => {
      const database = await openTestDatabase();
      try {
        const load = (secret: string) =>
          loadSecurityKey({
            orm: database.orm,
            sealer: new Sealer(secret, SECURITY_KEY_PURPOSE),
            securityEmail: SECURITY_EMAIL,
            logger: testLogger,
          });
        const secret = 'x'.repeat(40);
        const keys = await Promise.all([load(secret), load(secret), load(secret), load(secret)]);
        expect(new Set(keys.map((k) => k.fingerprint)).size).to.equal(1);
        for (const key of keys)
          expect(key.signingKey?.getFingerprint().toUpperCase()).to.equal(key.fingerprint);
        const { rows } = await database.client.query('select count(*) from platform_keys');
        expect(Number(rows[0].count)).to.equal(1);
        // And the next start finds it.
        expect((await load(secret)).fingerprint).to.equal(keys[0]!.fingerprint);

        // Another server secret cannot open it: the key stays, unsigned security.txt, an error logged.
        const other = await load('y'.repeat(40));
        expect(other.fingerprint).to.equal(keys[0]!.fingerprint);
        expect(other.signingKey).to.equal(null);
        const txt = await new SecurityTxt({
          key: other,
          publicUrl: 'https://grid.test',
          securityEmail: SECURITY_EMAIL,
        }).text();
        expect(txt).not.to.include('BEGIN PGP');
        expect(txt).to.include(`Contact: mailto:${SECURITY_EMAIL}`);
      } finally {
        await database.close();
      }
    });

    it('comes from SECURITY_PGP_KEY_FILE when set, which must be an unprotected private key', async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'eg-security-key-'));
      const database = await openTestDatabase();
      try {
        const made = await openpgp.generateKey({
          type: 'ecc',
          curve: 'curve25519Legacy',
          userIDs: [{ name: 'Ops', email: 'ops@grid.test' }],
          format: 'armored',
        });
        const load = async (content: string) => {
          const file = path.join(dir, `key-${Math.random()}.asc`);
          await writeFile(file, content, { mode: 0o600 });
          return loadSecurityKey({
            orm: database.orm,
            sealer: new Sealer('x'.repeat(40), SECURITY_KEY_PURPOSE),
            keyFile: file,
            securityEmail: SECURITY_EMAIL,
            logger: testLogger,
          });
        };
        const key = await load(made.privateKey);
        const expected = await openpgp.readKey({ armoredKey: made.publicKey });
        expect(key.fingerprint).to.equal(expected.getFingerprint().toUpperCase());
        expect(key.armoredPublicKey).to.include('PUBLIC KEY BLOCK').and.not.include('PRIVATE');
        // Nothing is written to the database.
        expect((await database.client.query('select count(*) from platform_keys')).rows[0].count).to.equal(
          '0',
        );

        const signed = await new SecurityTxt({
          key,
          publicUrl: 'https://grid.test',
          securityEmail: SECURITY_EMAIL,
        }).text();
        const v = await openpgp.verify({
          message: await openpgp.readCleartextMessage({ cleartextMessage: signed }),
          verificationKeys: expected,
          expectSigned: true,
        });
        await v.signatures[0]!.verified;

        const locked = await openpgp.generateKey({
          type: 'ecc',
          userIDs: [{ email: 'ops@grid.test' }],
          passphrase: 'correct horse',
          format: 'armored',
        });
        await expectRejection(load(locked.privateKey), /protected by a passphrase/);
        await expectRejection(load(made.publicKey), /not an armored OpenPGP private key/);
        await expectRejection(load('hello'), /not an armored OpenPGP private key/);
        await expectRejection(
          loadSecurityKey({
            orm: database.orm,
            sealer: new Sealer('x'.repeat(40), SECURITY_KEY_PURPOSE),
            keyFile: path.join(dir, 'missing.asc'),
            securityEmail: SECURITY_EMAIL,
            logger: testLogger,
          }),
          /cannot be read: ENOENT/,
        );
      } finally {
        await database.close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});

async function expectRejection(promise: Promise<unknown>, message: RegExp): Promise<void> {
  try {
    await promise;
  } catch (err) {
    expect((err as Error).message).to.match(message);
    return;
  }
  expect.fail(`expected a rejection matching ${message}`);
}

/** The platform's server secret, as server.ts loads it (DATA_DIR's jwt.secret in tests). */
async function secretOf(platform: TestPlatform): Promise<string> {
  const { loadJwtSecret } = await import('../auth/jwt.ts');
  return loadJwtSecret(undefined, platform.dataDir);
}
