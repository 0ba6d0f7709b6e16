import { expect } from 'chai';
import { COMMERCE_MESSAGES } from '../contracts/index.ts';
import { startBoxPlatform, type BoxTestPlatform } from '../testing/boxes.ts';
import { paddleEvent, postWebhook, signPaddle, signStripe, stripeEvent } from '../testing/payments.ts';

describe('buying credits on a platform without payment keys', function () {
  let t: BoxTestPlatform;

  before(async () => {
    t = await startBoxPlatform();
  });
  after(() => t?.close());

  const purchases = async () =>
    (await t.db.query('select count(*)::int as n from purchases')).rows[0].n as number;

  it('says payments are off, and refuses a checkout with the sentence that points to gift tokens', async () => {
    const player = await t.account();
    // Public: the pricing page asks it for visitors too.
    expect((await t.call('GET', '/subscription/config')).body).to.deep.equal({
      provider: 'stripe',
      paymentsEnabled: false,
      basicDailyLimitMinutes: 60,
      boxMinimumChargeMinutes: 5,
    });
    const refused = await t.call('POST', '/subscription/checkout', {
      token: player.token,
      body: { amount: 20, tier: 'BASIC' },
    });
    expect(refused.status).to.equal(503);
    expect(refused.body).to.deep.equal({
      statusCode: 503,
      message: COMMERCE_MESSAGES.paymentsDisabled,
      error: 'Service Unavailable',
    });
    expect(await purchases()).to.equal(0);
  });

  it('answers webhooks that it hears from no provider with 503, crediting nothing', async () => {
    const stripe = stripeEvent('checkout.session.completed', { id: 'cs_test_x' });
    const paddle = paddleEvent('transaction.completed', { id: 'txn_01x' });
    expect((await postWebhook(t.platform.baseUrl, 'stripe', stripe, signStripe(stripe))).status).to.equal(
      503,
    );
    expect((await postWebhook(t.platform.baseUrl, 'paddle', paddle, signPaddle(paddle))).status).to.equal(
      503,
    );
    expect((await t.db.query('select count(*)::int as n from payment_events')).rows[0].n).to.equal(0);
  });

  it('refuses bad input with a 400 a person can act on, before anything else', async () => {
    const player = await t.account();
    const checkout = async (body: unknown) => {
      const answer = await t.call('POST', '/subscription/checkout', { token: player.token, body });
      return [answer.status, answer.body.message];
    };
    expect(await checkout({ amount: 4, tier: 'BASIC' })).to.deep.equal([
      400,
      'amount: amount must be between 5 and 1000 dollars.',
    ]);
    expect(await checkout({ amount: 1001 })).to.deep.equal([
      400,
      'amount: amount must be between 5 and 1000 dollars.',
    ]);
    expect(await checkout({ amount: 20.5 })).to.deep.equal([
      400,
      'amount: amount must be a whole number of dollars.',
    ]);
    expect(await checkout({ amount: '20' })).to.deep.equal([
      400,
      'amount: amount must be a number of dollars.',
    ]);
    expect(await checkout({ amount: 20, tier: 'GOLD' })).to.deep.equal([
      400,
      'tier: tier must be one of BASIC, HACKER, ELITE, TEAM.',
    ]);
    expect(await checkout({ amount: 20, price: 1 })).to.deep.equal([
      400,
      'Unknown field in request body: price.',
    ]);
    expect(await checkout({ amount: 20, tier: 'ELITE' })).to.deep.equal([
      400,
      COMMERCE_MESSAGES.tierComingSoon,
    ]);
    expect(await checkout({ amount: 'x\u0000' })).to.deep.equal([
      400,
      'Text must not contain NUL characters.',
    ]);

    const status = async (query: string) => {
      const answer = await t.call('GET', `/subscription/payment-status${query}`, { token: player.token });
      return [answer.status, answer.body.message];
    };
    expect(await status('')).to.deep.equal([
      400,
      'sessionId: Invalid input: expected string, received undefined.',
    ]);
    expect(await status(`?sessionId=${'a'.repeat(256)}`)).to.deep.equal([
      400,
      'sessionId: sessionId is too long.',
    ]);
    expect(await status('?sessionId=cs_1&extra=1')).to.deep.equal([
      400,
      'Unknown field in query string: extra.',
    ]);
    expect(await purchases()).to.equal(0);
  });

  it('answers only signed-in players, but for the configuration', async () => {
    for (const [method, path] of [
      ['POST', '/subscription/checkout'],
      ['GET', '/subscription/payment-status?sessionId=cs_1'],
    ] as const)
      expect(
        (await t.call(method, path, { body: method === 'POST' ? { amount: 20 } : undefined })).status,
      ).to.equal(401);
  });

  it('documents the calls and the webhooks in the OpenAPI document', async () => {
    const { body } = await t.call<{ paths: Record<string, Record<string, { requestBody?: unknown }>> }>(
      'GET',
      '/openapi.json',
    );
    for (const path of ['/subscription/config', '/subscription/payment-status'])
      expect(body.paths[`/api/v1${path}`]).to.have.property('get');
    expect(body.paths['/api/v1/subscription/checkout']).to.have.property('post');
    for (const provider of ['stripe', 'paddle'])
      expect(body.paths[`/api/v1/payments/${provider}/webhook`]?.post?.requestBody).to.deep.include({
        required: true,
      });
  });
});
