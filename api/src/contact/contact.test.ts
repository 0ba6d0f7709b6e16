import { expect } from 'chai';
import pg from 'pg';
import {
  CONTACT_MESSAGE_MAX,
  CONTACT_NAME_REQUIRED,
  CONTACT_SENT,
  CONTACT_SUBJECT_REQUIRED,
  EMAIL_INVALID,
} from '../contracts/index.ts';
import { NUL_MESSAGE } from '../http/nul.ts';
import { startTestPlatform, type TestPlatform } from '../testing/fixtures.ts';
import { Mailbox } from '../testing/mailbox.ts';
import { runStaff } from '../testing/staff.ts';

describe('the contact form', function () {
  let platform: TestPlatform;
  let mailbox: Mailbox;
  let db: pg.Client;
  let counter = 0;
  let ip: string;

  before(async () => {
    mailbox = new Mailbox();
    platform = await startTestPlatform({
      // Behind a (pretend) proxy on loopback: each test speaks from an address of its own.
      env: {
        SMTP_URL: await mailbox.start(),
        TRUST_PROXY: 'loopback',
        STAFF_EMAIL: 'team@grid.test',
      },
    });
    db = new pg.Client({ connectionString: platform.databaseUrl });
    await db.connect();
  });
  after(async () => {
    await db?.end();
    await platform?.close();
    await mailbox?.stop();
  });
  beforeEach(() => {
    counter += 1;
    ip = `198.51.100.${counter}`;
  });

  const valid = () => ({
    name: 'Ada Lovelace',
    email: `ada${counter}@example.com`,
    subject: 'Team accounts for my class',
    message: 'Hello,\n\nCan 30 students share a TEAM tier?\n\nAda',
    inquiryType: 'business',
  });

  async function send(body: unknown, from = ip) {
    const res = await fetch(`${platform.baseUrl}/api/v1/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  const stored = async () => Number((await db.query('select count(*) from contact_messages')).rows[0].count);

  it('stores the message, mails it to staff with Reply-To the sender, and mails the sender a receipt', async () => {
    const message = {
      ...valid(),
      name: 'Ada <b>Lovelace</b>',
      message: 'Look: <script>alert(1)</script>\nBye',
    };
    const answer = await send(message);
    expect(answer).to.deep.equal({ status: 201, body: { message: CONTACT_SENT } });

    const { rows } = await db.query('select * from contact_messages where email = $1', [message.email]);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({
      name: message.name,
      subject: message.subject,
      message: message.message,
      inquiry_type: 'business',
      client_ip: ip,
    });

    const staff = await mailbox.waitFor('team@grid.test', /\[Contact: Business\] Team accounts for my class/);
    expect(staff.replyTo?.text).to.equal(message.email);
    expect(staff.text).to.include('Look: <script>alert(1)</script>\nBye').and.include(rows[0].id);
    // The visitor's words are text in the staff mail, never markup.
    expect(staff.html).to.include('&lt;script&gt;alert(1)&lt;/script&gt;').and.not.include('<script>');
    expect(staff.html).to.include('Ada &lt;b&gt;Lovelace&lt;/b&gt;');

    const receipt = await mailbox.waitFor(message.email, /We received your message/);
    // The receipt repeats nothing the visitor typed: it cannot carry a stranger's words to a stranger.
    for (const typed of [message.subject, 'Look', 'Lovelace', 'script'])
      expect(`${receipt.subject} ${receipt.text}`).not.to.include(typed);
    expect(receipt.text).to.include('within 24 hours');

    // Mailed before the answer: both times are there.
    const after = await db.query(
      'select staff_mailed_at, acknowledged_at from contact_messages where id = $1',
      [rows[0].id],
    );
    expect(after.rows[0].staff_mailed_at).to.be.instanceOf(Date);
    expect(after.rows[0].acknowledged_at).to.be.instanceOf(Date);
  });

  it('defaults the inquiry type to general', async () => {
    const { inquiryType: _, ...message } = valid();
    expect((await send(message)).status).to.equal(201);
    const { rows } = await db.query('select inquiry_type from contact_messages where email = $1', [
      message.email,
    ]);
    expect(rows[0].inquiry_type).to.equal('general');
  });

  it('refuses bad input with the field and its rule, storing and mailing nothing', async () => {
    const before = await stored();
    const mails = mailbox.messages.length;
    for (const [change, message] of [
      [{ name: '   ' }, `name: ${CONTACT_NAME_REQUIRED}`],
      [{ name: undefined }, 'name:'],
      [{ email: 'not-an-address' }, `email: ${EMAIL_INVALID}`],
      [{ email: 'a@example.com\r\nBcc: victim@example.com' }, `email: ${EMAIL_INVALID}`],
      [{ subject: '' }, `subject: ${CONTACT_SUBJECT_REQUIRED}`],
      [{ subject: 'Hi\r\nBcc: victim@example.com' }, 'subject: Subject must be a single line of text'],
      [{ message: ' \n ' }, 'message: Message is required'],
      [
        { message: 'x'.repeat(CONTACT_MESSAGE_MAX + 1) },
        `message: Message must be at most ${CONTACT_MESSAGE_MAX}`,
      ],
      [{ message: 'ring \u001b]0;owned\u0007 the terminal' }, 'message: Message must be plain text'],
      [
        { inquiryType: 'sales' },
        'inquiryType: Inquiry type must be one of general, technical, business, press',
      ],
      [{ admin: true }, 'Unknown field in request body: admin.'],
    ] as const) {
      const answer = await send({ ...valid(), ...change });
      expect(answer.status, JSON.stringify(change)).to.equal(400);
      expect(String(answer.body.message), JSON.stringify(change)).to.include(message);
    }
    const nul = await send({ ...valid(), message: 'a\u0000b' });
    expect(nul).to.deep.include({ status: 400 });
    expect(nul.body.message).to.equal(NUL_MESSAGE);
    expect((await send('{"name":')).status).to.equal(400);
    expect(await stored()).to.equal(before);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(mailbox.messages.length).to.equal(mails);
  });

  it('throttles one network at 5 messages an hour, and one typed-in address at 3 receipts a day', async () => {
    for (let i = 0; i < 5; i += 1)
      expect((await send({ ...valid(), email: `burst${counter}-${i}@example.com` })).status).to.equal(201);
    const sixth = await send({ ...valid(), email: `burst${counter}-6@example.com` });
    expect(sixth.status).to.equal(429);
    expect(sixth.body.message).to.match(
      /^Too many messages sent from your network\. Try again in \d+ minutes\.$/,
    );

    // A stranger's address typed from many networks: three receipts, then nothing more is sent to it.
    const victim = `victim${counter}@example.com`;
    for (let i = 0; i < 3; i += 1)
      expect((await send({ ...valid(), email: victim }, `203.0.113.${counter * 4 + i}`)).status).to.equal(
        201,
      );
    const fourth = await send({ ...valid(), email: victim }, `203.0.113.${counter * 4 + 3}`);
    expect(fourth.status).to.equal(429);
    expect(fourth.body.message).to.match(/^Too many messages from this email address today/);
    const { rows } = await db.query('select count(*) from contact_messages where email = $1', [victim]);
    expect(Number(rows[0].count)).to.equal(3);
    // A +tag or other letter case reaches the same mailbox: no fourth receipt that way either.
    for (const [i, alias] of [`victim${counter}+1@example.com`, `Victim${counter}+x@EXAMPLE.com`].entries())
      expect((await send({ ...valid(), email: alias }, `203.0.113.${200 + i}`)).status, alias).to.equal(429);
  });

  it('counts an IPv6 network by its /64, as one customer line', async () => {
    for (let i = 1; i <= 5; i += 1)
      expect(
        (await send({ ...valid(), email: `six${counter}-${i}@example.com` }, `2001:db8:${counter}:1::${i}`))
          .status,
      ).to.equal(201);
    const sixth = await send(
      { ...valid(), email: `six${counter}-6@example.com` },
      `2001:db8:${counter}:1::ff`,
    );
    expect(sixth.status).to.equal(429);
    expect(
      (await send({ ...valid(), email: `six${counter}-7@example.com` }, `2001:db8:${counter}:2::1`)).status,
    ).to.equal(201);
  });

  it('refuses C1 control characters and keeps line breaks in a message', async () => {
    expect((await send({ ...valid(), subject: 'Hi \u009b2J' })).status).to.equal(400);
    expect((await send({ ...valid(), message: 'ring \u009d0;owned\u009c' })).status).to.equal(400);
  });

  it('keeps the message when the mail server is down, and the staff CLI lists it as not mailed', async () => {
    const down = await startTestPlatform({
      env: { SMTP_URL: 'smtp://127.0.0.1:9', STAFF_EMAIL: 'team@grid.test' },
    });
    try {
      const res = await fetch(`${down.baseUrl}/api/v1/contact`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(valid()),
      });
      expect(res.status).to.equal(201);
      const list = await runStaff(down.databaseUrl, 'bob-staff', 'contact', 'list');
      expect(list.code).to.equal(0);
      expect(list.stdout).to.include('business').and.include('NOT MAILED').and.include(valid().subject);
    } finally {
      await down.close();
    }
  });

  it('shows a message in full to staff, logs the reading, and neuters escape sequences', async () => {
    const message = { ...valid(), message: 'Line one\n\tLine two\rOVERWRITE \u202ereversed' };
    expect((await send(message)).status).to.equal(201);
    const { rows } = await db.query('select id from contact_messages where email = $1', [message.email]);
    const id = rows[0].id as string;

    const list = await runStaff(
      platform.databaseUrl,
      'bob-staff',
      'contact',
      'list',
      '--type',
      'business',
      '--limit',
      '1',
    );
    expect(list.code, list.stderr).to.equal(0);
    expect(list.stdout.trim().split('\n')).to.have.length(1);
    expect(list.stdout)
      .to.include(id)
      .and.include(`Ada Lovelace <${message.email}>`)
      .and.not.include('NOT MAILED');

    const show = await runStaff(platform.databaseUrl, 'bob-staff', 'contact', 'show', id);
    expect(show.code, show.stderr).to.equal(0);
    expect(show.stdout).to.include(`From:     Ada Lovelace <${message.email}>`);
    expect(show.stdout)
      .to.include('Line one\n\tLine two\\x0dOVERWRITE \\u202ereversed')
      .and.not.include('\r')
      .and.not.include('\u202e');
    const { rows: log } = await db.query(
      `select actor, action, target from staff_actions where action = 'CONTACT_READ' and target = $1`,
      [id],
    );
    expect(log).to.deep.equal([{ actor: 'bob-staff', action: 'CONTACT_READ', target: id }]);

    for (const [args, error] of [
      [['contact', 'show', 'nope'], 'The id is the first column of contact list.'],
      [
        ['contact', 'show', '00000000-0000-4000-8000-000000000000'],
        'No contact message 00000000-0000-4000-8000-000000000000.',
      ],
      [['contact', 'list', '--type', 'sales'], '--type must be one of general, technical, business, press.'],
      [['contact', 'list', '--reason', 'x'], 'contact list does not take --reason (--help).'],
    ] as const) {
      const run = await runStaff(platform.databaseUrl, 'bob-staff', ...args);
      expect(run.code, args.join(' ')).to.equal(1);
      expect(run.stderr.trim(), args.join(' ')).to.equal(error);
    }
  });
});
