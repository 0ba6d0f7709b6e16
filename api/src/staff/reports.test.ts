import { expect } from 'chai';
import pg from 'pg';
import { UNDISCLOSED_FINDING_TITLE, type HallOfFame } from '../contracts/index.ts';
import { startTestPlatform, type TestPlatform } from '../testing/fixtures.ts';
import { Mailbox } from '../testing/mailbox.ts';
import { runStaff } from '../testing/staff.ts';

describe('the staff CLI: vulnerability reports', function () {
  this.timeout(60_000);
  let platform: TestPlatform;
  let mailbox: Mailbox;
  let db: pg.Client;
  let counter = 0;
  const saved = { SMTP_URL: process.env.SMTP_URL, SECURITY_EMAIL: process.env.SECURITY_EMAIL };

  before(async () => {
    mailbox = new Mailbox();
    const smtpUrl = await mailbox.start();
    platform = await startTestPlatform({
      env: { SMTP_URL: smtpUrl, TRUST_PROXY: 'loopback', SECURITY_EMAIL: 'security@grid.test' },
    });
    db = new pg.Client({ connectionString: platform.databaseUrl });
    await db.connect();
    // The CLI is a process of its own that reads its settings from the environment, as staff run it.
    process.env.SMTP_URL = smtpUrl;
    process.env.SECURITY_EMAIL = 'security@grid.test';
  });
  after(async () => {
    for (const [key, value] of Object.entries(saved))
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    await db?.end();
    await platform?.close();
    await mailbox?.stop();
  });

  const staff = (...args: string[]) => runStaff(platform.databaseUrl, 'carol-staff', ...args);

  async function submit(change: Record<string, unknown> = {}): Promise<string> {
    counter += 1;
    const res = await fetch(`${platform.baseUrl}/api/v1/security/vulnerability-report`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.9.0.${counter}` },
      body: JSON.stringify({
        reporterName: 'Grace Hopper',
        reporterEmail: `grace${counter}@example.com`,
        reporterHandle: 'amazing_grace',
        title: `Finding number ${counter}`,
        description: 'What it is.',
        severity: 'LOW',
        category: 'CSRF',
        reproductionSteps: 'Step one.\nStep two.',
        impactAssessment: 'What it costs.',
        ...change,
      }),
    });
    expect(res.status).to.equal(200);
    const { trackingId } = (await res.json()) as { trackingId: string };
    await mailbox.waitFor('security@grid.test', new RegExp(trackingId));
    return trackingId;
  }

  const state = async (trackingId: string) =>
    (
      await db.query(
        'select status, severity, public_title, rejection_reason from vulnerability_reports where tracking_id = $1',
        [trackingId],
      )
    ).rows[0] as {
      status: string;
      severity: string | null;
      public_title: string | null;
      rejection_reason: string | null;
    };
  const actions = async (trackingId: string) =>
    (
      await db.query<{
        actor: string;
        action: string;
        reason: string | null;
        details: Record<string, unknown>;
      }>('select actor, action, reason, details from staff_actions where target = $1 order by id', [
        trackingId,
      ])
    ).rows;
  const hallOfFame = async () =>
    (await (await fetch(`${platform.baseUrl}/api/v1/security/hall-of-fame`)).json()) as HallOfFame;

  it('lists reports newest first, by status on request, and refuses what is not a status', async () => {
    const older = await submit({ title: 'Older finding' });
    // The API refuses control characters; one that got in some other way still reaches a terminal as text.
    await db.query('update vulnerability_reports set title = $2 where tracking_id = $1', [
      older,
      'Older finding\u001b[2J',
    ]);
    const newer = await submit({ isAnonymous: true, title: 'Newer finding', severity: 'CRITICAL' });
    const list = await staff('reports', 'list', '--limit', '2');
    expect(list.code, list.stderr).to.equal(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(
      new RegExp(`^${newer}  NEW       reported CRITICAL  CSRF  \\S+Z  anonymous  Newer finding$`),
    );
    // A visitor's escape sequence reaches the terminal as text.
    expect(lines[1])
      .to.include(older)
      .and.include('Grace Hopper <grace')
      .and.include('Older finding\\x1b[2J');
    expect(list.stdout).not.to.include('\u001b');

    const none = await staff('reports', 'list', '--status', 'fixed');
    expect(none.stdout.trim()).to.equal('No vulnerability reports.');
    const bad = await staff('reports', 'list', '--status', 'OPEN');
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include('--status must be one of NEW, ACCEPTED, REJECTED, FIXED.');
  });

  it('shows a report in full for triage, and logs the reading', async () => {
    const trackingId = await submit({
      reporterWebsite: 'https://grace.example.com',
      affectedUrl: 'https://grid.test/box',
      proofOfConcept: 'curl -X POST https://grid.test/api/v1/boxes\n  -H "x: y"',
    });
    const show = await staff('reports', 'show', trackingId.toLowerCase());
    expect(show.code, show.stderr).to.equal(0);
    for (const line of [
      `Tracking ID: ${trackingId}`,
      'Status: NEW',
      'Severity (staff): -',
      'Severity (reported): LOW',
      'Category: CSRF',
      'Reporter: Grace Hopper',
      `Email: grace${counter}@example.com`,
      'Handle: amazing_grace',
      'Website: https://grace.example.com',
      'Affected URL: https://grid.test/box',
      `Title: Finding number ${counter}`,
      'Steps to reproduce:\n  Step one.\n  Step two.',
      'Proof of concept:\n  curl -X POST https://grid.test/api/v1/boxes\n    -H "x: y"',
      'Impact assessment:\n  What it costs.',
      'History:\n  (none)',
    ])
      expect(show.stdout).to.include(line);
    expect(show.stdout).to.match(/Mailed to the security mailbox: \d{4}-\S+Z/);
    expect((await actions(trackingId)).map((a) => a.action)).to.deep.equal(['VULN_REPORT_READ']);

    const unknown = await staff('reports', 'show', 'EG-VR-0000-0000-0000-0000');
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('No vulnerability report EG-VR-0000-0000-0000-0000.');
    const malformed = await staff('reports', 'show', "1' or '1'='1");
    expect(malformed.code).to.equal(1);
    expect(malformed.stderr).to.include('is not a tracking id');
  });

  it('accepts with a severity, then marks fixed: each a logged transition, and the hall of fame follows', async () => {
    const trackingId = await submit({ title: 'Raw title with exploit details' });
    const noSeverity = await staff('reports', 'accept', trackingId);
    expect(noSeverity.code).to.equal(1);
    expect(noSeverity.stderr).to.include('reports accept needs --severity');
    const badSeverity = await staff('reports', 'accept', trackingId, '--severity', 'URGENT');
    expect(badSeverity.code).to.equal(1);
    expect(await state(trackingId)).to.include({ status: 'NEW', severity: null });

    const accept = await staff(
      'reports',
      'accept',
      trackingId,
      '--severity',
      'high',
      '--title',
      'CSRF on box power',
    );
    expect(accept.code, accept.stderr).to.equal(0);
    expect(accept.stdout.trim()).to.equal(
      `${trackingId}: NEW -> ACCEPTED, severity HIGH. The hall of fame shows it as "${UNDISCLOSED_FINDING_TITLE}", credited to Grace Hopper (@amazing_grace).`,
    );
    expect(await state(trackingId)).to.include({
      status: 'ACCEPTED',
      severity: 'HIGH',
      public_title: 'CSRF on box power',
    });
    const { rows: ids } = await db.query('select id from vulnerability_reports where tracking_id = $1', [
      trackingId,
    ]);
    let fame = await hallOfFame();
    const finding = () =>
      fame.researchers.flatMap((r) => r.recentVulnerabilities).find((v) => v.id === ids[0].id);
    // Open: neither its title nor its severity is published.
    expect(finding()).to.include({ title: UNDISCLOSED_FINDING_TITLE, status: 'ACCEPTED', severity: null });
    expect(JSON.stringify(fame)).not.to.include('Raw title').and.not.to.include('CSRF on box power');

    const fixed = await staff('reports', 'fixed', trackingId);
    expect(fixed.code, fixed.stderr).to.equal(0);
    expect(fixed.stdout.trim()).to.equal(
      `${trackingId}: ACCEPTED -> FIXED, severity HIGH. The hall of fame shows it as "CSRF on box power", credited to Grace Hopper (@amazing_grace).`,
    );
    fame = await hallOfFame();
    expect(finding()).to.include({ title: 'CSRF on box power', status: 'FIXED', severity: 'HIGH' });

    const again = await staff('reports', 'fixed', trackingId);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.include('is FIXED already');
    const retitle = await staff('reports', 'fixed', trackingId, '--title', 'CSRF on the box page');
    expect(retitle.code, retitle.stderr).to.equal(0);
    expect(
      (await hallOfFame()).researchers.flatMap((r) => r.recentVulnerabilities).map((v) => v.title),
    ).to.include('CSRF on the box page');

    expect(await actions(trackingId)).to.deep.equal([
      {
        actor: 'carol-staff',
        action: 'VULN_REPORT_ACCEPT',
        reason: null,
        details: { from: 'NEW', to: 'ACCEPTED', severity: 'HIGH', publicTitle: 'CSRF on box power' },
      },
      {
        actor: 'carol-staff',
        action: 'VULN_REPORT_FIXED',
        reason: null,
        details: { from: 'ACCEPTED', to: 'FIXED' },
      },
      {
        actor: 'carol-staff',
        action: 'VULN_REPORT_FIXED',
        reason: null,
        details: { from: 'FIXED', to: 'FIXED', publicTitle: 'CSRF on the box page' },
      },
    ]);
    const show = await staff('reports', 'show', trackingId);
    expect(show.stdout).to.match(
      /VULN_REPORT_ACCEPT {2}by carol-staff \(NEW -> ACCEPTED, severity HIGH, public title "CSRF on box power"\)/,
    );
  });

  it('warns when accepting a report would rename a researcher credited already under that address', async () => {
    const first = await submit({ title: 'First', reporterEmail: 'ada@example.com', reporterName: 'Ada' });
    expect((await staff('reports', 'accept', first, '--severity', 'LOW')).stderr).to.equal('');
    const impostor = await submit({
      title: 'Second',
      reporterEmail: 'ADA@example.com',
      reporterName: 'Impostor',
      reporterHandle: 'fake',
    });
    const accept = await staff('reports', 'accept', impostor, '--severity', 'LOW');
    expect(accept.code).to.equal(0);
    expect(accept.stderr).to.include('the same address is credited already as Ada');
  });

  it('forgets a reporter at their request: the report stays, anonymous, and leaves the hall of fame', async () => {
    const trackingId = await submit({ title: 'Forget me' });
    expect((await staff('reports', 'accept', trackingId, '--severity', 'LOW')).code).to.equal(0);
    expect((await staff('reports', 'fixed', trackingId)).code).to.equal(0);
    expect(JSON.stringify(await hallOfFame())).to.include('Forget me');

    const forget = await staff('reports', 'anonymise', trackingId);
    expect(forget.code, forget.stderr).to.equal(0);
    expect(forget.stdout).to.include(`${trackingId} is anonymous now`);
    const { rows: after } = await db.query(
      `select status, is_anonymous, reporter_name, reporter_email, reporter_handle, title
         from vulnerability_reports where tracking_id = $1`,
      [trackingId],
    );
    expect(after[0]).to.deep.equal({
      status: 'FIXED',
      is_anonymous: true,
      reporter_name: null,
      reporter_email: null,
      reporter_handle: null,
      title: 'Forget me',
    });
    expect(JSON.stringify(await hallOfFame())).not.to.include('Forget me');
    const again = await staff('reports', 'anonymise', trackingId);
    expect(again.stdout).to.include('was anonymous already');
    const { rows } = await db.query(
      `select action, details from staff_actions where target = $1 and action = 'VULN_REPORT_ANONYMISE'`,
      [trackingId],
    );
    expect(rows).to.deep.equal([{ action: 'VULN_REPORT_ANONYMISE', details: { status: 'FIXED' } }]);
  });

  it('guards the transitions: nothing changes and nothing is logged when one is refused', async () => {
    const trackingId = await submit();
    const fixedFirst = await staff('reports', 'fixed', trackingId);
    expect(fixedFirst.code).to.equal(1);
    expect(fixedFirst.stderr).to.include(`${trackingId} is NEW: accept it first`);
    const noReason = await staff('reports', 'reject', trackingId);
    expect(noReason.code).to.equal(1);
    expect(noReason.stderr).to.include('reports reject needs --reason');
    const habit = await staff('reports', 'reject', trackingId, '--reason', 'dup', '--force');
    expect(habit.code).to.equal(1);
    expect(habit.stderr).to.include('needs no --force');
    expect(await actions(trackingId)).to.deep.equal([]);

    const reject = await staff('reports', 'reject', trackingId, '--reason', 'Duplicate of an earlier report');
    expect(reject.code, reject.stderr).to.equal(0);
    expect(reject.stdout.trim()).to.equal(`${trackingId}: NEW -> REJECTED. It is not in the hall of fame.`);
    expect(await state(trackingId)).to.include({
      status: 'REJECTED',
      rejection_reason: 'Duplicate of an earlier report',
    });

    // Accepting a rejected report needs staff to say so.
    const accept = await staff('reports', 'accept', trackingId, '--severity', 'LOW');
    expect(accept.code).to.equal(1);
    expect(accept.stderr).to.include(`${trackingId} was REJECTED: give --force to accept it after all.`);
    expect(await state(trackingId)).to.include({ status: 'REJECTED' });
    expect(await actions(trackingId)).to.have.length(1);

    const forced = await staff('reports', 'accept', trackingId, '--severity', 'CRITICAL', '--force');
    expect(forced.code, forced.stderr).to.equal(0);
    expect(await state(trackingId)).to.include({
      status: 'ACCEPTED',
      severity: 'CRITICAL',
      rejection_reason: null,
    });

    // And rejecting an accepted one (it leaves the hall of fame).
    const unaccept = await staff('reports', 'reject', trackingId, '--reason', 'Out of scope after all');
    expect(unaccept.code).to.equal(1);
    expect(unaccept.stderr).to.include('is ACCEPTED (in the hall of fame): give --force');
    expect(
      (await staff('reports', 'reject', trackingId, '--reason', 'Out of scope after all', '--force')).code,
    ).to.equal(0);
    expect(await state(trackingId)).to.include({ status: 'REJECTED' });
    const log = await actions(trackingId);
    expect(
      log.map((a) => [a.action, a.details.from, a.details.to, a.details.forced ?? false, a.reason]),
    ).to.deep.equal([
      ['VULN_REPORT_REJECT', 'NEW', 'REJECTED', false, 'Duplicate of an earlier report'],
      ['VULN_REPORT_ACCEPT', 'REJECTED', 'ACCEPTED', true, null],
      ['VULN_REPORT_REJECT', 'ACCEPTED', 'REJECTED', true, 'Out of scope after all'],
    ]);

    // Options that belong to another command are refused before anything is reached.
    const misplaced = await staff('reports', 'fixed', trackingId, '--severity', 'LOW');
    expect(misplaced.code).to.equal(1);
    expect(misplaced.stderr).to.include('reports fixed does not take --severity');
  });

  it('answers a reporter by mail, logged with the message; an anonymous report has nobody to answer', async () => {
    const trackingId = await submit();
    const email = `grace${counter}@example.com`;
    const answer = await staff(
      'reports',
      'answer',
      trackingId,
      '--message',
      'Thanks! We reproduced it.\nA fix ships this week.',
    );
    expect(answer.code, answer.stderr).to.equal(0);
    expect(answer.stdout.trim()).to.equal(`Mailed the answer about ${trackingId} to ${email}.`);
    const mail = await mailbox.waitFor(email, new RegExp(`About your vulnerability report ${trackingId}`));
    expect(mail.text).to.include('Thanks! We reproduced it.\nA fix ships this week.').and.include(trackingId);
    expect(mail.replyTo?.text).to.equal('security@grid.test');
    expect((await actions(trackingId)).map((a) => [a.action, a.details.message])).to.deep.equal([
      ['VULN_REPORT_ANSWER', 'Thanks! We reproduced it.\nA fix ships this week.'],
    ]);

    const anonymous = await submit({ isAnonymous: true });
    const refused = await staff('reports', 'answer', anonymous, '--message', 'Hello?');
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include(`${anonymous} is anonymous: there is no address to answer.`);
    expect(await actions(anonymous)).to.deep.equal([]);

    const empty = await staff('reports', 'answer', trackingId, '--message', '   ');
    expect(empty.code).to.equal(1);
    const escape = await staff('reports', 'answer', trackingId, '--message', 'hi \u001b]0;x\u0007');
    expect(escape.code).to.equal(1);
    expect(escape.stderr).to.include('--message must not contain control characters.');
  });
});
