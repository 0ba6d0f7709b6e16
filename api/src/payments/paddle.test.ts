import { expect } from 'chai';
import type { Socket } from 'socket.io-client';
import { COMMERCE_MESSAGES, type BalancePayload, type CheckoutResponse } from '../contracts/index.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { startBoxPlatform, type BoxTestPlatform } from '../testing/boxes.ts';
import { joinGrid } from '../testing/grid-client.ts';
import { startPaddleFake, type PaddleFake } from '../testing/paddle-fake.ts';
import { PADDLE_TEST, paddleAdjustment, paddleEvent, postWebhook, signPaddle } from '../testing/payments.ts';

describe('buying credits through Paddle (the Paddle SDK against a local fake of its API)', function () {
  this.timeout(60_000);
  let paddle: PaddleFake;
  let t: BoxTestPlatform;
  const sockets: Socket[] = [];

  before(async () => {
    paddle = await startPaddleFake({ apiKey: PADDLE_TEST.apiKey });
    t = await startBoxPlatform({
      env: {
        PAYMENT_PROVIDER: 'paddle',
        PADDLE_API_KEY: PADDLE_TEST.apiKey,
        PADDLE_WEBHOOK_SECRET: PADDLE_TEST.webhookSecret,
        PADDLE_CLIENT_TOKEN: PADDLE_TEST.clientToken,
        PADDLE_API_URL: paddle.url,
      },
    });
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.disconnect();
  });
  after(async () => {
    await t?.close();
    await paddle?.close();
  });

  async function checkout(amount = 20, player?: TestAccount) {
    const buyer = player ?? (await t.account());
    const answer = await t.call<CheckoutResponse>('POST', '/subscription/checkout', {
      token: buyer.token,
      body: { amount, tier: 'BASIC' },
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
    const transaction = paddle.transactions.get(answer.body.sessionId!)!;
    return { buyer, answer: answer.body, transaction };
  }

  /** The transaction as Paddle's transaction.* events carry it, in the state they report. */
  const asEventData = (transaction: Record<string, unknown>, status: string) => ({
    ...transaction,
    status,
    payments: [
      { status: 'captured', amount: (transaction.details as { totals: { total: string } }).totals.total },
    ],
  });

  /** A transaction.completed event's data with some of its totals changed (tax, discount, what was paid). */
  function completedWith(transaction: Record<string, unknown>, totals: Record<string, string>) {
    const data = asEventData(transaction, 'completed') as Record<string, unknown>;
    const details = data.details as { totals: Record<string, string> };
    return { ...data, details: { ...details, totals: { ...details.totals, ...totals } } };
  }

  const deliver = (type: string, data: Record<string, unknown>, id?: string) => {
    const body = paddleEvent(type, data, id);
    return postWebhook(t.platform.baseUrl, 'paddle', body, signPaddle(body));
  };

  async function ledger(userId: string) {
    const { rows } = await t.db.query(
      `select reason, credits_delta_cents::int as delta from credit_ledger
        where user_id = $1 and reason in ('PURCHASE', 'REFUND', 'CHARGEBACK') order by id`,
      [userId],
    );
    return (rows as { reason: string; delta: number }[]).map((r) => [r.reason, r.delta]);
  }

  const purchase = async (id: string) =>
    (
      await t.db.query(
        `select status, provider, provider_ref, refunded_cents::int, debited_credits_cents::int, credited_entry_id
           from purchases where id = $1`,
        [id],
      )
    ).rows[0] as Record<string, unknown>;

  it('says payments go through Paddle', async () => {
    const player = await t.account();
    expect((await t.call('GET', '/subscription/config', { token: player.token })).body).to.deep.equal({
      provider: 'paddle',
      paymentsEnabled: true,
      basicDailyLimitMinutes: 60,
      boxMinimumChargeMinutes: 5,
    });
  });

  it('creates a transaction for the purchase and answers the checkout page’s URL with the spec’s parameters', async () => {
    const { buyer, answer, transaction } = await checkout(25);
    const request = paddle.requests.at(-1)!;
    expect(request).to.deep.include({ method: 'POST', path: '/transactions', authorized: true });
    expect(request.body).to.deep.include({
      currency_code: 'USD',
      collection_mode: 'automatic',
      custom_data: { purchaseId: answer.purchaseId, userId: buyer.id },
    });
    const item = (request.body as { items: { quantity: number; price: Record<string, unknown> }[] })
      .items[0]!;
    expect(item.quantity).to.equal(1);
    expect(item.price.unit_price).to.deep.equal({ amount: '2500', currency_code: 'USD' });
    expect(transaction.custom_data).to.deep.equal({ purchaseId: answer.purchaseId, userId: buyer.id });

    const url = new URL(answer.checkoutUrl, 'http://portal.test');
    expect(url.pathname).to.equal('/checkout/paddle');
    expect(Object.fromEntries(url.searchParams)).to.deep.equal({
      clientToken: PADDLE_TEST.clientToken,
      transactionId: transaction.id,
      environment: 'sandbox',
      customerEmail: buyer.email,
      amount: '25',
      successUrl: '/plans?success=true',
      cancelUrl: '/plans?canceled=true',
      sessionId: transaction.id,
    });
    expect(await purchase(answer.purchaseId)).to.include({
      status: 'pending',
      provider: 'paddle',
      provider_ref: transaction.id,
    });
  });

  it('credits a completed transaction once, though paid and completed both arrive, and tells the sidebar', async () => {
    const { buyer, answer, transaction } = await checkout(20);
    const grid = await joinGrid(t.platform.baseUrl, buyer, sockets);
    const paid = paddleEvent('transaction.paid', asEventData(transaction, 'paid'));
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, () => postWebhook(t.platform.baseUrl, 'paddle', paid, signPaddle(paid))),
      deliver('transaction.completed', asEventData(transaction, 'completed')),
    ]);
    expect(answers.every((a) => a.status === 200)).to.equal(true);
    expect(await ledger(buyer.id)).to.deep.equal([['PURCHASE', 200_000]]);
    expect(await grid.next<BalancePayload>('balance')).to.deep.equal({ credits: 2000, freeCredits: 100 });
    const status = await t.call('GET', `/subscription/payment-status?sessionId=${transaction.id}`, {
      token: buyer.token,
    });
    expect(status.body).to.deep.equal({ success: true, creditsAdded: 2000, currentCredits: 2000 });
    expect(await purchase(answer.purchaseId)).to.include({ status: 'paid' });
  });

  it('refuses a tampered body, a wrong secret and a stale timestamp (beyond the SDK’s 5 s): 400, nothing credited', async () => {
    const { buyer, transaction } = await checkout(10);
    const body = paddleEvent('transaction.completed', asEventData(transaction, 'completed'));
    const tampered = body.replace('"status":"completed"', '"status":"completed" ');
    const answers = await Promise.all([
      postWebhook(t.platform.baseUrl, 'paddle', tampered, signPaddle(body)),
      postWebhook(t.platform.baseUrl, 'paddle', body, signPaddle(body, { secret: 'pdl_ntfset_01notours' })),
      postWebhook(
        t.platform.baseUrl,
        'paddle',
        body,
        signPaddle(body, { timestamp: Math.floor(Date.now() / 1000) - 30 }),
      ),
      postWebhook(t.platform.baseUrl, 'paddle', body, 'garbage'),
      postWebhook(t.platform.baseUrl, 'paddle', body, null),
    ]);
    expect(answers.map((a) => [a.status, a.body?.message])).to.deep.equal([
      [400, 'Invalid Paddle signature.'],
      [400, 'Invalid Paddle signature.'],
      [400, 'Invalid Paddle signature.'],
      [400, 'Invalid Paddle signature.'],
      [400, 'Missing Paddle-Signature header.'],
    ]);
    expect(await ledger(buyer.id)).to.deep.equal([]);
    expect((await postWebhook(t.platform.baseUrl, 'paddle', body, signPaddle(body))).status).to.equal(200);
    expect(await ledger(buyer.id)).to.deep.equal([['PURCHASE', 100_000]]);
  });

  it('takes back an approved refund once, whichever events report it; a pending one takes nothing', async () => {
    const { buyer, answer, transaction } = await checkout(20);
    await deliver('transaction.completed', asEventData(transaction, 'completed'));
    const adjustment = paddleAdjustment(transaction.id, {
      action: 'refund',
      status: 'pending_approval',
      total: 500,
    });
    await deliver('adjustment.created', adjustment);
    expect(await ledger(buyer.id)).to.deep.equal([['PURCHASE', 200_000]]);
    const approved = { ...adjustment, status: 'approved' };
    const first = paddleEvent('adjustment.updated', approved);
    expect((await postWebhook(t.platform.baseUrl, 'paddle', first, signPaddle(first))).status).to.equal(200);
    expect((await postWebhook(t.platform.baseUrl, 'paddle', first, signPaddle(first))).status).to.equal(200);
    // Another event (a new id) about the same approved adjustment.
    await deliver('adjustment.updated', approved);
    expect(await ledger(buyer.id)).to.deep.equal([
      ['PURCHASE', 200_000],
      ['REFUND', -50_000],
    ]);
    expect(await purchase(answer.purchaseId)).to.include({
      status: 'partially_refunded',
      refunded_cents: 500,
      debited_credits_cents: 50_000,
    });
  });

  it('takes back a chargeback', async () => {
    const { buyer, answer, transaction } = await checkout(10);
    await deliver('transaction.completed', asEventData(transaction, 'completed'));
    await deliver(
      'adjustment.created',
      paddleAdjustment(transaction.id, { action: 'chargeback', status: 'approved', total: 1000, full: true }),
    );
    expect(await ledger(buyer.id)).to.deep.equal([
      ['PURCHASE', 100_000],
      ['CHARGEBACK', -100_000],
    ]);
    expect(await purchase(answer.purchaseId)).to.include({
      status: 'disputed',
      debited_credits_cents: 100_000,
    });
  });

  it('is harmless out of order: a full refund approved before completion leaves nothing to credit', async () => {
    const { buyer, answer, transaction } = await checkout(10);
    await deliver(
      'adjustment.updated',
      paddleAdjustment(transaction.id, { action: 'refund', status: 'approved', total: 1000, full: true }),
    );
    await deliver('transaction.completed', asEventData(transaction, 'completed'));
    expect(await ledger(buyer.id)).to.deep.equal([]);
    expect(await purchase(answer.purchaseId)).to.include({ status: 'refunded', credited_entry_id: null });

    // The same with tax on top: the payment's total (12.00 with 2.00 tax) is more than the refund measured.
    const taxed = await checkout(10, buyer);
    await deliver(
      'adjustment.updated',
      paddleAdjustment(taxed.transaction.id, {
        action: 'refund',
        status: 'approved',
        total: 1000,
        full: true,
      }),
    );
    const withTax = completedWith(taxed.transaction, { total: '1200', tax: '200' });
    expect((await deliver('transaction.completed', withTax)).status).to.equal(200);
    expect(await ledger(buyer.id)).to.deep.equal([]);
  });

  it('holds a payment below the price or with a discount, and refuses a signature dated ahead', async () => {
    const cases: Record<string, string>[] = [{ total: '500' }, { discount: '200', total: '1000' }];
    for (const totals of cases) {
      const { buyer, answer, transaction } = await checkout(10);
      const data = completedWith(transaction, totals);
      expect((await deliver('transaction.completed', data)).status).to.equal(200);
      expect(await ledger(buyer.id), JSON.stringify(totals)).to.deep.equal([]);
      expect(await purchase(answer.purchaseId)).to.include({ status: 'held', credited_entry_id: null });
    }
    const { buyer, transaction } = await checkout(10);
    const body = paddleEvent('transaction.completed', asEventData(transaction, 'completed'));
    const ahead = Math.floor(Date.now() / 1000) + 3600;
    const refused = await postWebhook(
      t.platform.baseUrl,
      'paddle',
      body,
      signPaddle(body, { timestamp: ahead }),
    );
    expect(refused.status).to.equal(400);
    expect(await ledger(buyer.id)).to.deep.equal([]);
  });

  it('marks a canceled transaction, and a later completion still credits it', async () => {
    const { buyer, answer, transaction } = await checkout(5);
    await deliver('transaction.canceled', asEventData(transaction, 'canceled'));
    expect(await purchase(answer.purchaseId)).to.include({ status: 'canceled' });
    await deliver('transaction.completed', asEventData(transaction, 'completed'));
    expect(await ledger(buyer.id)).to.deep.equal([['PURCHASE', 50_000]]);
    expect(await purchase(answer.purchaseId)).to.include({ status: 'paid' });
  });

  it('answers 502 with the spec’s message when Paddle fails, and cancels the purchase', async () => {
    const player = await t.account();
    paddle.failNext(500);
    const failed = await t.call('POST', '/subscription/checkout', {
      token: player.token,
      body: { amount: 20, tier: 'BASIC' },
    });
    expect(failed.status).to.equal(502);
    expect(failed.body.message).to.equal(COMMERCE_MESSAGES.paddleFailed);
    const { rows } = await t.db.query('select status, provider_ref from purchases where user_id = $1', [
      player.id,
    ]);
    expect(rows).to.deep.equal([{ status: 'canceled', provider_ref: null }]);
  });

  it('sells a catalog price by the dollar when PADDLE_PRICE_ID is set, and names it in the checkout URL', async () => {
    const catalog = await startPaddleFake({
      apiKey: PADDLE_TEST.apiKey,
      catalogPrices: { pri_01creditsusd: 100 },
    });
    const withPrice = await startBoxPlatform({
      env: {
        PADDLE_API_KEY: PADDLE_TEST.apiKey,
        PADDLE_WEBHOOK_SECRET: PADDLE_TEST.webhookSecret,
        PADDLE_CLIENT_TOKEN: PADDLE_TEST.clientToken,
        PADDLE_API_URL: catalog.url,
        PADDLE_PRICE_ID: 'pri_01creditsusd',
      },
    });
    try {
      const player = await withPrice.account();
      const answer = await withPrice.call<CheckoutResponse>('POST', '/subscription/checkout', {
        token: player.token,
        body: { amount: 42 },
      });
      expect(answer.status).to.equal(201);
      expect((catalog.requests.at(-1)!.body as { items: unknown[] }).items).to.deep.equal([
        { price_id: 'pri_01creditsusd', quantity: 42 },
      ]);
      const transaction = catalog.transactions.get(answer.body.sessionId!)!;
      expect(transaction.details.totals.total).to.equal('4200');
      const url = new URL(answer.body.checkoutUrl, 'http://portal.test');
      expect(url.searchParams.get('priceId')).to.equal('pri_01creditsusd');
      expect(url.searchParams.get('transactionId')).to.equal(transaction.id);
    } finally {
      await withPrice.close();
      await catalog.close();
    }
  });
});
