import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { Socket } from 'socket.io-client';
import {
  ACCOUNT_BANNED,
  COMMERCE_MESSAGES,
  GIFT_TOKEN_PATTERN,
  type BalancePayload,
} from '../contracts/index.ts';
import { createAccount, type TestAccount } from '../testing/accounts.ts';
import { startBoxPlatform, type BoxTestPlatform } from '../testing/boxes.ts';
import { joinGrid } from '../testing/grid-client.ts';
import { mintGifts } from '../staff/gifts.ts';
import { GIFT_TOKEN_ALPHABET, giftTokenHash, newGiftToken, normaliseGiftToken } from './gifts.ts';

describe('gift tokens', function () {
  describe('the token format', () => {
    it('draws XXXX-XXXX-XXXX from the 32 symbols without I, L, O and U: 60 bits, no repeats', () => {
      expect(GIFT_TOKEN_ALPHABET).to.have.length(32);
      expect(GIFT_TOKEN_ALPHABET).to.not.match(/[ILOU]/);
      const tokens = Array.from({ length: 5000 }, () => newGiftToken());
      for (const token of tokens) {
        expect(token).to.match(GIFT_TOKEN_PATTERN);
        expect(token.replace(/-/g, '')).to.match(/^[0-9A-HJKMNP-TV-Z]{12}$/);
      }
      expect(new Set(tokens).size).to.equal(tokens.length);
      // Every symbol turns up, in every position (5000 draws: a missing one is one chance in ~10^66).
      for (let position = 0; position < 14; position++) {
        if (position === 4 || position === 9) continue;
        expect(new Set(tokens.map((t) => t[position])).size, `position ${position}`).to.equal(32);
      }
    });

    it('reads what a player types: case, spaces, missing or typographic dashes, O as 0, I and L as 1', () => {
      const canonical = 'A0B1-C2D3-E4F5';
      for (const typed of [
        'A0B1-C2D3-E4F5',
        'a0b1-c2d3-e4f5',
        'A0B1C2D3E4F5',
        '  a0b1 c2d3 e4f5 ',
        'AOBI-C2D3-E4F5',
        'aobl c2d3–e4f5',
        'A0B1—C2D3—E4F5',
        'A0-B1C2-D3E4-F5',
      ])
        expect(normaliseGiftToken(typed), typed).to.equal(canonical);
      for (const wrong of [
        '',
        'A0B1-C2D3-E4F',
        'A0B1-C2D3-E4F55',
        'A0B1-C2D3-E4FU',
        'A0B1_C2D3_E4F5',
        'A0B1-C2D3-E4F\0',
      ])
        expect(normaliseGiftToken(wrong), JSON.stringify(wrong)).to.equal(null);
    });
  });

  describe('POST /gifts/redeem', () => {
    let t: BoxTestPlatform;
    const sockets: Socket[] = [];
    before(async () => {
      // Behind a (pretend) proxy on loopback: players speak from addresses of their own (X-Forwarded-For).
      t = await startBoxPlatform({ env: { TRUST_PROXY: 'loopback' } });
    });
    afterEach(() => {
      for (const socket of sockets.splice(0)) socket.close();
    });
    after(() => t?.close());

    let addresses = 0;
    const newAddress = () => {
      addresses++;
      return `10.7.${Math.floor(addresses / 250)}.${addresses % 250}`;
    };

    async function redeem(account: TestAccount, token: unknown, address: string) {
      const res = await fetch(`${t.platform.baseUrl}/api/v1/gifts/redeem`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${account.token}`,
          'content-type': 'application/json',
          'x-forwarded-for': address,
        },
        body: JSON.stringify({ token }),
      });
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: (await res.json()) as { creditsGranted?: number; message?: string },
      };
    }

    /** Mints as staff do; answers the tokens. */
    async function mint(credits: number, count = 1, expiresAt: Date | null = null): Promise<string[]> {
      const minted = await mintGifts(t.db, {
        creditsCents: Math.round(credits * 100),
        count,
        expiresAt,
        note: 'test',
        actor: 'test-staff',
      });
      return minted.map((g) => g.token);
    }

    async function giftRows(userId: string) {
      const { rows } = await t.db.query<{ reference: string; free_credits_delta_cents: string }>(
        "select reference, free_credits_delta_cents from credit_ledger where user_id = $1 and reason = 'GIFT_TOKEN'",
        [userId],
      );
      return rows;
    }

    const freeCredits = async (account: TestAccount) =>
      (await t.call<{ freeCredits: number }>('GET', '/users/me', { token: account.token })).body.freeCredits;

    it('grants its free credits once: of 50 players redeeming one token at once, one gets it, 49 are refused', async function () {
      this.timeout(120_000);
      const [token] = await mint(25);
      const players: TestAccount[] = [];
      for (let batch = 0; batch < 5; batch++)
        players.push(...(await Promise.all(Array.from({ length: 10 }, () => createAccount(t.platform)))));
      const answers = await Promise.all(players.map((p) => redeem(p, token, newAddress())));

      const granted = answers.filter((a) => a.status === 200);
      expect(granted.map((a) => a.body)).to.deep.equal([{ creditsGranted: 25 }]);
      const refused = answers.filter((a) => a.status !== 200);
      expect(refused).to.have.length(49);
      for (const answer of refused) {
        expect(answer.status).to.equal(400);
        expect(answer.body.message).to.equal(COMMERCE_MESSAGES.redeemInvalid);
      }
      const winner = players[answers.findIndex((a) => a.status === 200)]!;
      const gift = await t.db.query<{ id: string; redeemed_by: string }>(
        'select id, redeemed_by from gift_tokens where token_hash = $1 and redeemed_at is not null',
        [giftTokenHash(token!)],
      );
      expect(gift.rows.map((r) => r.redeemed_by)).to.deep.equal([winner.id]);
      const rows = await t.db.query<{ user_id: string; reference: string; free_credits_delta_cents: string }>(
        `select user_id, reference, free_credits_delta_cents from credit_ledger
          where reason = 'GIFT_TOKEN' and user_id = any($1::uuid[])`,
        [players.map((p) => p.id)],
      );
      expect(rows.rows).to.deep.equal([
        { user_id: winner.id, reference: `gift:${gift.rows[0]!.id}`, free_credits_delta_cents: '2500' },
      ]);
      expect(await freeCredits(winner)).to.equal(125);
      expect(await freeCredits(players.find((p) => p !== winner)!)).to.equal(100);
    });

    it("tells the player's open pages the new balance", async () => {
      const player = await t.account();
      const grid = await joinGrid(t.platform.baseUrl, player, sockets);
      const [token] = await mint(12.34);
      expect((await redeem(player, token, newAddress())).body).to.deep.equal({ creditsGranted: 12.34 });
      expect(await grid.next<BalancePayload>('balance')).to.deep.equal({ credits: 0, freeCredits: 112.34 });
    });

    it('takes the token as the player types it', async () => {
      const player = await t.account();
      const canonical = 'A0B1-C2D3-E4F5';
      await t.db.query(
        `insert into gift_tokens (token_hash, hint, free_credits_cents, created_by) values ($1, 'E4F5', 500, 'test')`,
        [createHash('sha256').update(canonical).digest()],
      );
      const answer = await redeem(player, '  aobl c2d3–e4f5 ', newAddress());
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(answer.body).to.deep.equal({ creditsGranted: 5 });
      // Once: in any spelling.
      const again = await redeem(player, canonical, newAddress());
      expect(again.status).to.equal(400);
      expect(again.body.message).to.equal(COMMERCE_MESSAGES.redeemInvalid);
    });

    it('refuses an unknown, expired, used or malformed token with one answer, and changes nothing', async () => {
      const player = await t.account();
      const other = await t.account();
      const [expired] = await mint(10, 1, new Date(Date.now() - 1000));
      const [used] = await mint(10);
      expect((await redeem(other, used, newAddress())).status).to.equal(200);
      const answers = await Promise.all(
        [newGiftToken(), expired, used, 'not a token'].map((token) => redeem(player, token, newAddress())),
      );
      for (const answer of answers)
        expect({ status: answer.status, body: answer.body }).to.deep.equal({
          status: 400,
          body: { statusCode: 400, message: COMMERCE_MESSAGES.redeemInvalid, error: 'Bad Request' },
        });
      expect(await giftRows(player.id)).to.deep.equal([]);
      expect(await freeCredits(player)).to.equal(100);
      const left = await t.db.query('select redeemed_at from gift_tokens where token_hash = $1', [
        giftTokenHash(expired!),
      ]);
      expect(left.rows).to.deep.equal([{ redeemed_at: null }]);
    });

    it('stops guessing: 5 failures a player, then 429 with Retry-After, even for a good token', async () => {
      const guesser = await t.account();
      const [good] = await mint(10);
      // Successes do not count as guesses.
      for (const token of await mint(1, 3))
        expect((await redeem(guesser, token, newAddress())).status).to.equal(200);
      // In parallel, from as many addresses: counted all the same.
      const guesses = await Promise.all(
        Array.from({ length: 5 }, () => redeem(guesser, newGiftToken(), newAddress())),
      );
      expect(guesses.map((g) => g.status)).to.deep.equal([400, 400, 400, 400, 400]);
      const blocked = await redeem(guesser, good, newAddress());
      expect(blocked.status).to.equal(429);
      expect(Number(blocked.retryAfter)).to.be.within(15 * 60 - 5, 15 * 60);
      expect(blocked.body.message).to.equal('Too many gift token attempts. Try again in 15 minutes.');
      // The good token is still there for the next player, who is not throttled.
      const next = await t.account();
      expect((await redeem(next, good, newAddress())).body).to.deep.equal({ creditsGranted: 10 });
    });

    it('stops guessing from one address: 20 failures, whoever the players', async () => {
      const address = newAddress();
      for (let i = 0; i < 4; i++) {
        const player = await t.account();
        for (let j = 0; j < 5; j++)
          expect((await redeem(player, newGiftToken(), address)).status).to.equal(400);
      }
      const fresh = await t.account();
      const [token] = await mint(10);
      const blocked = await redeem(fresh, token, address);
      expect(blocked.status).to.equal(429);
      expect(Number(blocked.retryAfter)).to.be.within(15 * 60 - 5, 15 * 60);
      expect(blocked.body.message).to.equal(
        'Too many gift token attempts from your network. Try again in 15 minutes.',
      );
      expect((await redeem(fresh, token, newAddress())).status).to.equal(200);
    });

    it('keeps no token in clear: only its SHA-256 and a label of its own', async () => {
      const tokens = await mint(1, 5);
      const { rows } = await t.db.query<{ row: string; token_hash: Buffer; hint: string }>(
        `select row_to_json(g)::text as row, token_hash, hint from gift_tokens g where token_hash = any($1::bytea[])`,
        [tokens.map(giftTokenHash)],
      );
      expect(rows).to.have.length(5);
      const actions = await t.db.query<{ details: string }>(
        "select details::text as details from staff_actions where action = 'GIFT_MINT'",
      );
      for (const token of tokens) {
        const row = rows.find((r) => r.token_hash.equals(createHash('sha256').update(token).digest()))!;
        expect(row).to.not.equal(undefined);
        for (const part of token.split('-'))
          for (const text of [row.row, ...actions.rows.map((a) => a.details)])
            expect(text.replace(row.hint, ''), part).to.not.include(part);
      }
    });

    it('refuses a banned player (403) and leaves the token', async () => {
      const player = await t.account();
      const [token] = await mint(10);
      await t.db.query("update users set banned_at = now(), banned_reason = 'test' where id = $1", [
        player.id,
      ]);
      const answer = await redeem(player, token, newAddress());
      expect(answer.status).to.equal(403);
      expect(answer.body.message).to.equal(ACCOUNT_BANNED);
      const other = await t.account();
      expect((await redeem(other, token, newAddress())).status).to.equal(200);
    });

    it('says what is wrong with a request that is not a token, and needs a signed-in player', async () => {
      const player = await t.account();
      const empty = await redeem(player, '   ', newAddress());
      expect(empty.status).to.equal(400);
      expect(empty.body.message).to.equal('token: token is required.');
      const number = await redeem(player, 1234, newAddress());
      expect(number.status).to.equal(400);
      const extra = await t.call('POST', '/gifts/redeem', {
        token: player.token,
        body: { token: 'A0B1-C2D3-E4F5', amount: 100 },
      });
      expect(extra.status).to.equal(400);
      expect(extra.body.message).to.equal('Unknown field in request body: amount.');
      const anonymous = await t.call('POST', '/gifts/redeem', { body: { token: 'A0B1-C2D3-E4F5' } });
      expect(anonymous.status).to.equal(401);
    });
  });
});
