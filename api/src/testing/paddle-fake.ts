import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the Paddle Billing API endpoints the SDK calls for checkout (POST /transactions,
 * GET /transactions/{id}), answering in Paddle's wire format: snake_case JSON in a `data`/`meta` envelope,
 * errors as `{ error: { type, code, detail, documentation_url }, meta }`, bearer-key authentication.
 * Paddle cannot run here; the real @paddle/paddle-node-sdk talks to this instead.
 */
export interface PaddleFake {
  url: string;
  /** Every request received (the API key is not kept). */
  requests: { method: string; path: string; authorized: boolean; body: unknown }[];
  /** The transactions it created, by id, as Paddle's API shows them. */
  transactions: Map<string, PaddleTransaction>;
  /** The next request answers this HTTP status with Paddle's error envelope. */
  failNext(status: number): void;
  close(): Promise<void>;
}

export type PaddleTransaction = Record<string, unknown> & {
  id: string;
  status: string;
  custom_data: Record<string, unknown> | null;
  currency_code: string;
  details: { totals: Record<string, string | null> } & Record<string, unknown>;
};

interface TransactionRequest {
  items?: {
    price_id?: string;
    quantity?: number;
    price?: {
      name?: string;
      description?: string;
      unit_price?: { amount?: string; currency_code?: string };
      quantity?: { minimum?: number; maximum?: number };
      product?: { name?: string; tax_category?: string };
      tax_mode?: string;
    };
  }[];
  custom_data?: Record<string, unknown> | null;
  currency_code?: string;
  collection_mode?: string;
}

const paddleId = (prefix: string) => `${prefix}_01${randomBytes(12).toString('hex').slice(0, 24)}`;

export async function startPaddleFake(options: { apiKey: string; catalogPrices?: Record<string, number> }) {
  const requests: PaddleFake['requests'] = [];
  const transactions = new Map<string, PaddleTransaction>();
  let failing: number | null = null;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const meta = () => ({ request_id: randomBytes(16).toString('hex') });
  const error = (res: ServerResponse, status: number, code: string, detail: string, errors?: unknown) =>
    send(res, status, {
      error: {
        type: status >= 500 ? 'api_error' : 'request_error',
        code,
        detail,
        documentation_url: `https://developer.paddle.com/v1/errors/shared/${code}`,
        ...(errors ? { errors } : {}),
      },
      meta: meta(),
    });

  const create = (body: TransactionRequest): PaddleTransaction | { field: string; message: string } => {
    if (!Array.isArray(body.items) || body.items.length === 0)
      return { field: 'items', message: 'is required' };
    const now = new Date().toISOString();
    const currency = body.currency_code ?? 'USD';
    let subtotal = 0;
    const items = [];
    const lineItems = [];
    for (const [i, item] of body.items.entries()) {
      const quantity = item.quantity;
      if (!Number.isInteger(quantity) || quantity! < 1)
        return { field: `items[${i}].quantity`, message: 'must be a whole number of at least 1' };
      let price;
      if (item.price_id) {
        const unit = options.catalogPrices?.[item.price_id];
        if (unit === undefined) return { field: `items[${i}].price_id`, message: 'price not found' };
        price = priceJson(item.price_id, paddleId('pro'), 'Catalog price', String(unit), currency, now, {
          minimum: 1,
          maximum: 1000,
        });
      } else if (item.price) {
        const amount = item.price.unit_price?.amount;
        if (!amount || !/^\d+$/.test(amount))
          return { field: `items[${i}].price.unit_price.amount`, message: 'must be a string of minor units' };
        if (item.price.unit_price?.currency_code !== currency)
          return {
            field: `items[${i}].price.unit_price.currency_code`,
            message: 'must match the transaction',
          };
        if (!item.price.product?.name || !item.price.product.tax_category)
          return { field: `items[${i}].price.product`, message: 'needs a name and a tax_category' };
        price = priceJson(
          paddleId('pri'),
          paddleId('pro'),
          item.price.description ?? '',
          amount,
          currency,
          now,
          { minimum: item.price.quantity?.minimum ?? 1, maximum: item.price.quantity?.maximum ?? 100 },
          item.price.name,
        );
      } else return { field: `items[${i}]`, message: 'needs a price_id or a price' };
      const line = Number((price.unit_price as { amount: string }).amount) * quantity!;
      subtotal += line;
      items.push({ price, quantity, proration: null });
      lineItems.push({
        id: paddleId('txnitm'),
        price_id: price.id,
        quantity,
        proration: null,
        tax_rate: '0',
        unit_totals: {
          subtotal: String(line / quantity!),
          discount: '0',
          tax: '0',
          total: String(line / quantity!),
        },
        totals: { subtotal: String(line), discount: '0', tax: '0', total: String(line) },
        product: {
          id: price.product_id,
          name: item.price?.product?.name ?? 'Catalog product',
          description: null,
          type: 'custom',
          tax_category: item.price?.product?.tax_category ?? 'standard',
          image_url: null,
          custom_data: null,
          status: 'active',
          import_meta: null,
          created_at: now,
          updated_at: now,
        },
      });
    }
    const totals = {
      subtotal: String(subtotal),
      discount: '0',
      tax: '0',
      total: String(subtotal),
      credit: '0',
      credit_to_balance: '0',
      balance: String(subtotal),
      grand_total: String(subtotal),
      grand_total_tax: '0',
      fee: null,
      earnings: null,
      currency_code: currency,
    };
    const id = paddleId('txn');
    return {
      id,
      status: 'draft',
      customer_id: null,
      address_id: null,
      business_id: null,
      custom_data: body.custom_data ?? null,
      origin: 'api',
      collection_mode: body.collection_mode ?? 'automatic',
      subscription_id: null,
      invoice_id: null,
      invoice_number: null,
      billing_details: null,
      billing_period: null,
      currency_code: currency,
      discount_id: null,
      created_at: now,
      updated_at: now,
      billed_at: null,
      revised_at: null,
      items,
      details: {
        tax_rates_used: [],
        totals,
        adjusted_totals: { ...totals },
        payout_totals: null,
        adjusted_payout_totals: null,
        line_items: lineItems,
      },
      payments: [],
      checkout: { url: `https://localhost/pay?_ptxn=${id}` },
    };
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const authorized =
        (req.headers.authorization ?? '').toLowerCase() === `bearer ${options.apiKey}`.toLowerCase();
      let body: unknown;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
      } catch {
        error(res, 400, 'bad_request', 'Invalid JSON.');
        return;
      }
      requests.push({ method: req.method ?? '', path, authorized, body });
      if (failing !== null) {
        const status = failing;
        failing = null;
        error(res, status, status >= 500 ? 'internal_error' : 'bad_request', 'Something went wrong.');
        return;
      }
      if (!authorized) {
        error(res, 403, 'forbidden', "You aren't permitted to perform this request.");
        return;
      }
      if (req.method === 'POST' && path === '/transactions') {
        const created = create((body ?? {}) as TransactionRequest);
        if ('field' in created) {
          error(res, 400, 'bad_request', 'Invalid request.', [created]);
          return;
        }
        transactions.set(created.id, created);
        send(res, 201, { data: created, meta: meta() });
        return;
      }
      const found = /^\/transactions\/(txn_[a-z0-9]+)$/.exec(path);
      if (req.method === 'GET' && found) {
        const transaction = transactions.get(found[1]!);
        if (transaction) send(res, 200, { data: transaction, meta: meta() });
        else error(res, 404, 'entity_not_found', `Entity ${found[1]} not found`);
        return;
      }
      error(res, 404, 'not_found', 'Not found.');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    transactions,
    failNext(status: number) {
      failing = status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  } satisfies PaddleFake;
}

function priceJson(
  id: string,
  productId: string,
  description: string,
  amount: string,
  currency: string,
  now: string,
  quantity: { minimum: number; maximum: number },
  name?: string,
) {
  return {
    id,
    product_id: productId,
    description,
    name: name ?? null,
    type: 'custom',
    billing_cycle: null,
    trial_period: null,
    tax_mode: 'account_setting',
    unit_price: { amount, currency_code: currency },
    unit_price_overrides: [],
    quantity,
    status: 'active',
    custom_data: null,
    import_meta: null,
    created_at: now,
    updated_at: now,
  };
}
