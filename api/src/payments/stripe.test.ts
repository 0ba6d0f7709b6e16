import { expect } from 'chai';
import type { Socket } from 'socket.io-client';
import {
  COMMERCE_MESSAGES,
  type BalancePayload,
  type CheckoutResponse,
  type PaymentStatus,
} from '../contracts/index.ts';
import { Ledger } from '../credits/ledger.ts';
import { freeLoopbackPort } from '../net.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { startBoxPlatform, type BoxTestPlatform } from '../testing/boxes.ts';
import { joinGrid } from '../testing/grid-client.ts';
import {
  STRIPE_TEST,
  postWebhook,
  signStripe,
  stripeCharge,
  stripeDispute,
  stripeEvent,
  stripeSession,
} from '../testing/payments.ts';
import { startStripeMock, type StripeMock } from '../testing/stripe-mock.ts';

describe('buying credits through Stripe (the stripe SDK against stripe-mock)', function () {
  this.timeout(60_000);
  let mock: StripeMock;
  let t: BoxTestPlatform;
  const sockets: Socket[] = [];

  before(async () => {
    mock = await startStripeMock();
    t = await startBoxPlatform({
      env: {
        STRIPE_SECRET_KEY: STRIPE_TEST.secretKey,
        STRIPE_WEBHOOK_SECRET: STRIPE_TEST.webhookSecret,
        STRIPE_API_URL: mock.url,
      },
    });
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.disconnect();
  });
  after(async () => {
    await t?.close();
    await mock?.close();
  });

  /** A player who started a checkout of `amount` dollars: the answer and what a webhook would name. */
  async function checkout(amount = 20, player?: TestAccount) {
    const buyer = player ?? (await t.account());
    const answer = await t.call<CheckoutResponse>('POST', '/subscription/checkout', {
      token: buyer.token,
      body: { amount, tier: 'BASIC' },
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
    const session = stripeSession({
      sessionId: answer.body.sessionId!,
      purchaseId: answer.body.purchaseId,
      userId: buyer.id,
      amountCents: amount * 100,
    });
    return { buyer, answer: answer.body, session };
  }

  const deliver = (type: string, object: Record<string, unknown>, id?: string) => {
    const body = stripeEvent(type, object, id);
    return postWebhook(t.platform.baseUrl, 'stripe', body, signStripe(body));
  };

  async function purchase(id: string) {
    const { rows } = await t.db.query(
      `select status, amount_cents::int, credits_cents::int, provider, provider_ref, provider_payment_ref, tier,
              credited_entry_id, refunded_cents::int, debited_credits_cents::int, paid_cents::int
         from purchases where id = $1`,
      [id],
    );
    return rows[0] as Record<string, unknown>;
  }

  async function ledger(userId: string) {
    const { rows } = await t.db.query(
      `select reason, credits_delta_cents::int as delta, credits_after_cents::int as after, reference
         from credit_ledger where user_id = $1 and reason in ('PURCHASE', 'REFUND', 'CHARGEBACK') order by id`,
      [userId],
    );
    return rows as { reason: string; delta: number; after: number; reference: string }[];
  }

  const status = (player: TestAccount, sessionId: string) =>
    t.call<PaymentStatus>(
      'GET',
      `/subscription/payment-status?sessionId=${encodeURIComponent(sessionId)}&initialCredits=0`,
      { token: player.token },
    );

  it('says payments go through Stripe', async () => {
    const player = await t.account();
    const config = await t.call('GET', '/subscription/config', { token: player.token });
    expect(config).to.deep.equal({
      status: 200,
      body: {
        provider: 'stripe',
        paymentsEnabled: true,
        basicDailyLimitMinutes: 60,
        boxMinimumChargeMinutes: 5,
      },
    });
  });

  it('writes a pending purchase, then opens a Checkout Session that points back at it', async () => {
    const { buyer, answer } = await checkout(20);
    expect(answer.provider).to.equal('stripe');
    expect(answer.sessionId).to.match(/^cs_test_/);
    expect(answer.checkoutUrl).to.match(/^https:\/\/checkout\.stripe\.com\//);
    expect(await purchase(answer.purchaseId)).to.include({
      status: 'pending',
      amount_cents: 2000,
      credits_cents: 200_000,
      provider: 'stripe',
      provider_ref: answer.sessionId,
      tier: 'BASIC',
      credited_entry_id: null,
    });
    expect(await ledger(buyer.id)).to.deep.equal([]);
    expect((await status(buyer, answer.sessionId!)).body).to.deep.equal({
      success: false,
      creditsAdded: 0,
      currentCredits: 0,
    });
  });

  it('credits a paid checkout once, from its own row, sets the tier, and tells the player’s sidebar live', async () => {
    const { buyer, answer, session } = await checkout(20);
    const grid = await joinGrid(t.platform.baseUrl, buyer, sockets);
    const delivered = await deliver('checkout.session.completed', session);
    expect(delivered).to.deep.equal({ status: 200, body: { received: true } });
    expect(await ledger(buyer.id)).to.deep.equal([
      { reason: 'PURCHASE', delta: 200_000, after: 200_000, reference: answer.purchaseId },
    ]);
    expect(await purchase(answer.purchaseId)).to.include({
      status: 'paid',
      provider_payment_ref: session.payment_intent,
    });
    const balance = await grid.next<BalancePayload>('balance');
    expect(balance).to.deep.equal({ credits: 2000, freeCredits: 100 });
    const me = await t.call<{ credits: number; subscription: { tier: string } }>('GET', '/users/me', {
      token: buyer.token,
    });
    expect(me.body.credits).to.equal(2000);
    expect(me.body.subscription.tier).to.equal('BASIC');
    expect((await status(buyer, answer.sessionId!)).body).to.deep.equal({
      success: true,
      creditsAdded: 2000,
      currentCredits: 2000,
    });
    // Our own purchase id names it too.
    expect((await status(buyer, answer.purchaseId)).body.success).to.equal(true);
  });

  it('holds a payment below the price, in another currency or with a discount: nothing credited', async () => {
    for (const paid of [
      { amount_total: 1 },
      { currency: 'eur' },
      { total_details: { amount_discount: 500 } },
      { amount_total: null },
    ]) {
      const { buyer, answer, session } = await checkout(20);
      expect((await deliver('checkout.session.completed', { ...session, ...paid })).status).to.equal(200);
      expect(await ledger(buyer.id), JSON.stringify(paid)).to.deep.equal([]);
      expect(await purchase(answer.purchaseId)).to.include({ status: 'held', credited_entry_id: null });
      expect((await status(buyer, answer.sessionId!)).body.success).to.equal(false);
    }
  });

  it('refuses a signature dated in the future', async () => {
    const { buyer, session } = await checkout(10);
    const body = stripeEvent('checkout.session.completed', session);
    const ahead = Math.floor(Date.now() / 1000) + 3600;
    const refused = await postWebhook(
      t.platform.baseUrl,
      'stripe',
      body,
      signStripe(body, { timestamp: ahead }),
    );
    expect(refused.status).to.equal(400);
    expect(await ledger(buyer.id)).to.deep.equal([]);
  });

  it('refuses a tampered body, a wrong secret, a stale timestamp and a missing signature: 400, nothing credited', async () => {
    const { buyer, session } = await checkout(10);
    const body = stripeEvent('checkout.session.completed', session);
    const tampered = body.replace('"amount_total":1000', '"amount_total":1001');
    expect(tampered).to.not.equal(body);
    const answers = await Promise.all([
      postWebhook(t.platform.baseUrl, 'stripe', tampered, signStripe(body)),
      postWebhook(t.platform.baseUrl, 'stripe', body, signStripe(body, { secret: 'whsec_notours' })),
      // Stripe's default tolerance is 300 s.
      postWebhook(
        t.platform.baseUrl,
        'stripe',
        body,
        signStripe(body, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
      ),
      postWebhook(t.platform.baseUrl, 'stripe', body, null),
    ]);
    expect(answers.map((a) => a.status)).to.deep.equal([400, 400, 400, 400]);
    expect(answers.map((a) => a.body?.message)).to.deep.equal([
      'Invalid Stripe signature.',
      'Invalid Stripe signature.',
      'Invalid Stripe signature.',
      'Missing Stripe-Signature header.',
    ]);
    expect(await ledger(buyer.id)).to.deep.equal([]);
    const { rows } = await t.db.query('select count(*)::int as n from payment_events where event_id = $1', [
      JSON.parse(body).id,
    ]);
    expect(rows[0].n).to.equal(0);
    // The genuine delivery still credits.
    expect((await postWebhook(t.platform.baseUrl, 'stripe', body, signStripe(body))).status).to.equal(200);
    expect(await ledger(buyer.id)).to.have.length(1);
  });

  it('treats a repeated delivery of an event as a no-op', async () => {
    const { buyer, session } = await checkout(15);
    const body = stripeEvent('checkout.session.completed', session);
    for (let i = 0; i < 3; i++)
      expect((await postWebhook(t.platform.baseUrl, 'stripe', body, signStripe(body))).status).to.equal(200);
    expect((await ledger(buyer.id)).map((e) => e.delta)).to.deep.equal([150_000]);
  });

  it('credits exactly once when 20 deliveries of one event arrive at the same time', async () => {
    const { buyer, answer, session } = await checkout(50);
    const body = stripeEvent('checkout.session.completed', session);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => postWebhook(t.platform.baseUrl, 'stripe', body, signStripe(body))),
    );
    expect(answers.every((a) => a.status === 200)).to.equal(true);
    expect(await ledger(buyer.id)).to.deep.equal([
      { reason: 'PURCHASE', delta: 500_000, after: 500_000, reference: answer.purchaseId },
    ]);
  });

  it('credits once when two different events report the same payment, even at the same time', async () => {
    const { buyer, session } = await checkout(30);
    const answers = await Promise.all([
      deliver('checkout.session.completed', session),
      deliver('checkout.session.async_payment_succeeded', session),
      deliver('checkout.session.completed', session),
    ]);
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200]);
    expect((await ledger(buyer.id)).map((e) => e.delta)).to.deep.equal([300_000]);
  });

  it('credits nothing for a session completed unpaid, and marks an expired one', async () => {
    const { buyer, answer, session } = await checkout(5);
    expect(
      (await deliver('checkout.session.completed', { ...session, payment_status: 'unpaid' })).status,
    ).to.equal(200);
    expect(await ledger(buyer.id)).to.deep.equal([]);
    expect((await deliver('checkout.session.expired', { ...session, status: 'expired' })).status).to.equal(
      200,
    );
    expect(await purchase(answer.purchaseId)).to.include({ status: 'expired', credited_entry_id: null });
  });

  it('takes back the refunded share once per refund; a repeat or an older total takes nothing', async () => {
    const { buyer, answer, session } = await checkout(20);
    await deliver('checkout.session.completed', session);
    // A quarter refunded, then the whole: Stripe's running total is what counts.
    const quarter = stripeEvent('charge.refunded', stripeCharge(session, 500));
    expect((await postWebhook(t.platform.baseUrl, 'stripe', quarter, signStripe(quarter))).status).to.equal(
      200,
    );
    expect((await postWebhook(t.platform.baseUrl, 'stripe', quarter, signStripe(quarter))).status).to.equal(
      200,
    );
    expect(await purchase(answer.purchaseId)).to.include({
      status: 'partially_refunded',
      refunded_cents: 500,
      debited_credits_cents: 50_000,
    });
    await deliver('charge.refunded', stripeCharge(session, 2000));
    // Delivered late, the quarter's total (a new event id) moves nothing.
    await deliver('charge.refunded', stripeCharge(session, 500));
    expect((await ledger(buyer.id)).map((e) => [e.reason, e.delta, e.after])).to.deep.equal([
      ['PURCHASE', 200_000, 200_000],
      ['REFUND', -50_000, 150_000],
      ['REFUND', -150_000, 0],
    ]);
    expect(await purchase(answer.purchaseId)).to.include({
      status: 'refunded',
      refunded_cents: 2000,
      debited_credits_cents: 200_000,
    });
  });

  it('never takes back more than the player still has, and records what it took', async () => {
    const { buyer, answer, session } = await checkout(10);
    await deliver('checkout.session.completed', session);
    // The player spent 70,000 of the 100,000 hundredths (their 100 free credits went first).
    const spent = await Ledger.charge(t.sql(), buyer.id, 10_000 + 70_000, 'BOX_TIME');
    expect(spent?.creditsCents).to.equal(30_000);
    const grid = await joinGrid(t.platform.baseUrl, buyer, sockets);
    await deliver('charge.refunded', stripeCharge(session, 1000));
    expect(await purchase(answer.purchaseId)).to.include({
      status: 'refunded',
      refunded_cents: 1000,
      debited_credits_cents: 30_000,
    });
    expect((await ledger(buyer.id)).at(-1)).to.include({ reason: 'REFUND', delta: -30_000, after: 0 });
    expect(await grid.next<BalancePayload>('balance')).to.deep.equal({ credits: 0, freeCredits: 0 });
  });

  it('takes back what a chargeback covers, once per dispute', async () => {
    const { buyer, answer, session } = await checkout(40);
    await deliver('checkout.session.completed', session);
    await deliver('charge.refunded', stripeCharge(session, 1000));
    const dispute = stripeDispute(session, 3000);
    await deliver('charge.dispute.created', dispute);
    await deliver('charge.dispute.created', dispute);
    expect((await ledger(buyer.id)).map((e) => [e.reason, e.delta])).to.deep.equal([
      ['PURCHASE', 400_000],
      ['REFUND', -100_000],
      ['CHARGEBACK', -300_000],
    ]);
    expect(await purchase(answer.purchaseId)).to.include({
      status: 'disputed',
      debited_credits_cents: 400_000,
    });
  });

  it('is harmless out of order: a refund that overtakes its payment is delivered again, then counted once', async () => {
    const { buyer, answer, session } = await checkout(20);
    // The refund names a payment we learn of only from the session's own event: refused (409), not recorded,
    // so Stripe delivers it again; then it takes back its share once.
    const refund = stripeEvent('charge.refunded', stripeCharge(session, 500));
    expect((await postWebhook(t.platform.baseUrl, 'stripe', refund, signStripe(refund))).status).to.equal(
      409,
    );
    expect(await ledger(buyer.id)).to.deep.equal([]);
    await deliver('checkout.session.completed', session);
    expect((await postWebhook(t.platform.baseUrl, 'stripe', refund, signStripe(refund))).status).to.equal(
      200,
    );
    expect((await postWebhook(t.platform.baseUrl, 'stripe', refund, signStripe(refund))).status).to.equal(
      200,
    );
    expect((await ledger(buyer.id)).map((e) => e.delta)).to.deep.equal([200_000, -50_000]);
    expect(await purchase(answer.purchaseId)).to.include({
      status: 'partially_refunded',
      refunded_cents: 500,
    });
    // A full refund that overtook completion: credited, then taken back whole when Stripe delivers it again.
    const second = await checkout(10, buyer);
    const full = stripeEvent('charge.refunded', stripeCharge(second.session, 1000));
    expect((await postWebhook(t.platform.baseUrl, 'stripe', full, signStripe(full))).status).to.equal(409);
    await deliver('checkout.session.completed', second.session);
    expect((await postWebhook(t.platform.baseUrl, 'stripe', full, signStripe(full))).status).to.equal(200);
    expect(await purchase(second.answer.purchaseId)).to.include({ status: 'refunded' });
    expect((await ledger(buyer.id)).map((e) => e.delta)).to.deep.equal([200_000, -50_000, 100_000, -100_000]);
  });

  it('ignores events of other kinds and payments that are not ours, but records them', async () => {
    const other = stripeSession({
      sessionId: 'cs_test_notours',
      purchaseId: '00000000-0000-4000-8000-000000000000',
      userId: 'nobody',
      amountCents: 2000,
    });
    const body = stripeEvent('checkout.session.completed', other);
    expect((await postWebhook(t.platform.baseUrl, 'stripe', body, signStripe(body))).status).to.equal(200);
    expect((await deliver('customer.created', { id: 'cus_123', object: 'customer' })).status).to.equal(200);
    const { rows } = await t.db.query('select purchase_id from payment_events where event_id = $1', [
      JSON.parse(body).id,
    ]);
    expect(rows).to.deep.equal([{ purchase_id: null }]);
  });

  it('answers payment status only about the caller’s own purchases', async () => {
    const { answer, session } = await checkout(25);
    await deliver('checkout.session.completed', session);
    const stranger = await t.account();
    const expected = { status: 200, body: { success: false, creditsAdded: 0, currentCredits: 0 } };
    expect(await status(stranger, answer.sessionId!)).to.deep.equal(expected);
    expect(await status(stranger, answer.purchaseId)).to.deep.equal(expected);
    expect(await status(stranger, 'cs_test_doesnotexist')).to.deep.equal(expected);
  });

  it('answers 502 with the spec’s message when Stripe cannot be reached, and limits checkouts per player', async () => {
    const closedPort = await freeLoopbackPort();
    const offline = await startBoxPlatform({
      env: {
        STRIPE_SECRET_KEY: STRIPE_TEST.secretKey,
        STRIPE_WEBHOOK_SECRET: STRIPE_TEST.webhookSecret,
        STRIPE_API_URL: `http://127.0.0.1:${closedPort}`,
      },
      throttleLimits: { checkout: { points: 2, durationSeconds: 600, blockSeconds: 0 } },
    });
    try {
      const player = await offline.account();
      for (let i = 0; i < 2; i++) {
        const failed = await offline.call('POST', '/subscription/checkout', {
          token: player.token,
          body: { amount: 20, tier: 'BASIC' },
        });
        expect(failed.status).to.equal(502);
        expect(failed.body.message).to.equal(COMMERCE_MESSAGES.stripeFailed);
      }
      const { rows } = await offline.db.query('select status from purchases where user_id = $1', [player.id]);
      expect(rows).to.deep.equal([{ status: 'canceled' }, { status: 'canceled' }]);
      const limited = await offline.call('POST', '/subscription/checkout', {
        token: player.token,
        body: { amount: 20, tier: 'BASIC' },
      });
      expect(limited.status).to.equal(429);
      expect(limited.body.message).to.match(/^Too many checkouts started\. Try again in \d+ minutes\.$/);
    } finally {
      await offline.close();
    }
  });
});
