import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { GIFT_TOKEN_PATTERN } from '../contracts/index.ts';
import { startBoxPlatform, type BoxTestPlatform } from '../testing/boxes.ts';
import { runStaff } from '../testing/staff.ts';
import { parseGiftExpiry } from './gifts.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('the staff CLI: gift tokens', function () {
  let t: BoxTestPlatform;
  before(async () => {
    t = await startBoxPlatform();
  });
  after(() => t?.close());

  const staff = (...args: string[]) => runStaff(t.platform.databaseUrl, 'carol-staff', ...args);
  const tokensOf = (stdout: string) => stdout.trim().split('\n');
  /** The labels `gifts mint` tells on standard error, in the order of the tokens. */
  const labelsOf = (stderr: string) => /in the same order: (.*)$/m.exec(stderr)![1]!.split(' ');
  const count = async (table: 'gift_tokens' | 'staff_actions') =>
    Number((await t.db.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]!.n);

  it('mints tokens, prints them once, keeps their hashes and logs the action without them', async () => {
    const before = Date.now();
    const mint = await staff(
      'gifts',
      'mint',
      '--credits',
      '12.5',
      '--count',
      '3',
      '--expires',
      '30d',
      '--note',
      'CTF night prizes',
    );
    expect(mint.code, mint.stderr).to.equal(0);
    const tokens = tokensOf(mint.stdout);
    expect(tokens).to.have.length(3);
    for (const token of tokens) expect(token).to.match(GIFT_TOKEN_PATTERN);
    expect(mint.stderr).to.match(
      /^Minted 3 gift token\(s\) of 12\.50 free credits each, until \S+Z\. They are shown only now: the platform keeps their hashes\.\nTheir labels in gifts list, in the same order: [0-9A-Z]{4} [0-9A-Z]{4} [0-9A-Z]{4}\n$/,
    );

    const { rows } = await t.db.query<{
      id: string;
      token_hash: Buffer;
      hint: string;
      free_credits_cents: string;
      expires_at: Date;
      note: string;
      created_by: string;
    }>('select * from gift_tokens where note = $1', ['CTF night prizes']);
    expect(rows).to.have.length(3);
    for (const token of tokens) {
      const row = rows.find((r) => r.token_hash.equals(createHash('sha256').update(token).digest()));
      expect(row, token).to.not.equal(undefined);
      expect(row).to.include({
        free_credits_cents: '1250',
        created_by: 'carol-staff',
      });
      // A label of its own: nothing of the token.
      expect(row!.hint).to.match(/^[0-9A-Z]{4}$/);
      expect(row!.expires_at.getTime()).to.be.within(before + 30 * DAY_MS - 5000, Date.now() + 30 * DAY_MS);
    }

    const action = await t.db.query<{
      actor: string;
      action: string;
      target: string;
      reason: string;
      details: string;
    }>(
      "select actor, action, target, reason, details::text as details from staff_actions where action = 'GIFT_MINT'",
    );
    expect(action.rows).to.have.length(1);
    expect(action.rows[0]).to.include({
      actor: 'carol-staff',
      target: '3 gift tokens',
      reason: 'CTF night prizes',
    });
    const details = JSON.parse(action.rows[0]!.details) as {
      count: number;
      creditsEach: number;
      gifts: { id: string }[];
    };
    expect(details).to.include({ count: 3, creditsEach: 12.5 });
    expect(details.gifts.map((g) => g.id).sort()).to.deep.equal(rows.map((r) => r.id).sort());
    for (const token of tokens) {
      expect(action.rows[0]!.details).to.not.include(token.slice(0, 9));
      expect(action.rows[0]!.details).to.not.include(token.replace(/-/g, '').slice(0, 8));
    }
    const log = await staff('log');
    expect(log.stdout).to.match(/GIFT_MINT +3 gift tokens +by carol-staff: CTF night prizes/);
  });

  it('lists tokens newest first with who redeemed them, and only the unredeemed ones on request', async () => {
    const player = await t.account();
    const first = await staff('gifts', 'mint', '--credits', '5', '--count', '2');
    expect(first.code, first.stderr).to.equal(0);
    const [redeemed, left] = tokensOf(first.stdout);
    const [redeemedLabel, leftLabel] = labelsOf(first.stderr);
    const year = new Date().getUTCFullYear() + 1;
    const newest = await staff('gifts', 'mint', '--credits', '7', '--expires', `${year}-12-31`);
    expect(newest.code, newest.stderr).to.equal(0);
    const redeem = await t.call('POST', '/gifts/redeem', { token: player.token, body: { token: redeemed } });
    expect(redeem.status).to.equal(200);

    const list = await staff('gifts', 'list', '--limit', '3');
    expect(list.code, list.stderr).to.equal(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines).to.have.length(3);
    expect(lines[0]).to.match(
      new RegExp(
        `^[0-9a-f-]{36}  label ${labelsOf(newest.stderr)[0]}  7\\.00 credits  created \\S+Z by carol-staff  expires ${year + 1}-01-01T00:00:00\\.000Z  not redeemed$`,
      ),
    );
    const redeemedLine = lines.find((l) => l.includes(`label ${redeemedLabel}  `))!;
    expect(redeemedLine).to.match(
      new RegExp(`5\\.00 credits .* expires never  redeemed by ${player.handle} at \\S+Z$`),
    );
    expect(list.stdout).to.include(`label ${leftLabel}  5.00 credits`);
    // The tokens themselves are nowhere to be listed.
    for (const token of [redeemed!, left!]) expect(list.stdout).to.not.include(token.slice(0, 9));

    const unredeemed = await staff('gifts', 'list', '--unredeemed', '--limit', '1000');
    expect(unredeemed.stdout).to.not.include(`redeemed by`);
    expect(unredeemed.stdout).to.include(`label ${leftLabel}  5.00 credits`);
    expect(unredeemed.stdout).to.not.include(`label ${redeemedLabel}  5.00 credits`);
  });

  it('says when a token expired', async () => {
    const mint = await staff('gifts', 'mint', '--credits', '1', '--expires', '1h', '--note', 'soon gone');
    expect(mint.code, mint.stderr).to.equal(0);
    await t.db.query(
      "update gift_tokens set expires_at = now() - interval '1 minute' where note = 'soon gone'",
    );
    const list = await staff('gifts', 'list', '--unredeemed');
    expect(list.stdout).to.match(/ expires \S+Z {2}expired {2}note: soon gone\n/);
  });

  it('refuses bad input with a sentence, changing nothing', async function () {
    // 23 runs of the CLI, each a new Node process reading the sources: about a second each on a busy
    // two-core machine, past mocha's default.
    this.timeout(120_000);
    const gifts = await count('gift_tokens');
    const actions = await count('staff_actions');
    const credits =
      '--credits must be a number of credits above 0 and at most 100000, with at most 2 decimals.';
    const expires =
      '--expires must be a time span (12h, 30d, 8w), a date (2026-12-31) or a date and time with its zone (2026-12-31T18:00:00Z).';
    for (const [args, message] of [
      [['gifts', 'mint'], 'gifts mint needs --credits <n>: the free credits each token grants.'],
      [['gifts', 'mint', '--credits', '0'], credits],
      [['gifts', 'mint', '--credits=-5'], credits],
      [['gifts', 'mint', '--credits', 'ten'], credits],
      [['gifts', 'mint', '--credits', '1.234'], credits],
      [['gifts', 'mint', '--credits', '100000.01'], credits],
      [['gifts', 'mint', '--credits', '5', '--count', '0'], '--count must be a whole number from 1 to 1000.'],
      [
        ['gifts', 'mint', '--credits', '5', '--count', '1001'],
        '--count must be a whole number from 1 to 1000.',
      ],
      [
        ['gifts', 'mint', '--credits', '5', '--count', '2.5'],
        '--count must be a whole number from 1 to 1000.',
      ],
      [['gifts', 'mint', '--credits', '5', '--expires', 'soon'], expires],
      [['gifts', 'mint', '--credits', '5', '--expires', '2026-02-30'], expires],
      [['gifts', 'mint', '--credits', '5', '--expires', '2026-12-31T18:00'], expires],
      [['gifts', 'mint', '--credits', '5', '--expires', '2000-01-01'], '--expires must be in the future.'],
      [
        ['gifts', 'mint', '--credits', '5', '--expires', '3000d'],
        '--expires must be at most five years ahead.',
      ],
      [
        ['gifts', 'mint', '--credits', '5', '--note', 'a\u0007b'],
        '--note must not contain control characters.',
      ],
      [
        ['gifts', 'mint', '--credits', '5', '--note', 'x'.repeat(501)],
        '--note must be at most 500 characters.',
      ],
      [['gifts', 'mint', '--credits', '5', '--reason', 'x'], 'gifts mint does not take --reason (--help).'],
      [['gifts', 'list', '--credits', '5'], 'gifts list does not take --credits (--help).'],
      [['gifts', 'list', '--limit', '0'], '--limit must be a whole number from 1 to 1000.'],
      [['gifts'], 'Usage: gifts mint, gifts list (--help for their options).'],
      [['gifts', 'burn'], 'Usage: gifts mint, gifts list (--help for their options).'],
      [['gifts', 'list', 'extra'], 'Unexpected arguments: extra'],
    ] as const) {
      const run = await staff(...args);
      expect(run.code, args.join(' ')).to.equal(1);
      expect(run.stderr.trim(), args.join(' ')).to.equal(message);
      expect(run.stdout, args.join(' ')).to.equal('');
    }
    expect(await count('gift_tokens')).to.equal(gifts);
    expect(await count('staff_actions')).to.equal(actions);
  });

  it('reads --expires as a span, the end of a date (UTC) or a moment with its zone', () => {
    const now = new Date('2026-11-26T10:00:00.000Z');
    expect(parseGiftExpiry('12h', now).toISOString()).to.equal('2026-11-26T22:00:00.000Z');
    expect(parseGiftExpiry('30d', now).toISOString()).to.equal('2026-12-26T10:00:00.000Z');
    expect(parseGiftExpiry('2W', now).toISOString()).to.equal('2026-12-10T10:00:00.000Z');
    expect(parseGiftExpiry('2026-12-31', now).toISOString()).to.equal('2027-01-01T00:00:00.000Z');
    expect(parseGiftExpiry('2026-12-31T18:00:00+02:00', now).toISOString()).to.equal(
      '2026-12-31T16:00:00.000Z',
    );
    // Today's date still has time left.
    expect(parseGiftExpiry('2026-11-26', now).toISOString()).to.equal('2026-11-27T00:00:00.000Z');
  });
});
