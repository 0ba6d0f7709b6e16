import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import express from 'express';
import { z } from 'zod';
import { testLogger } from '../testing/logger.ts';
import { errorHandler } from './errors.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { ApiRouter } from './route.ts';

describe('ApiRouter', () => {
  const created: unknown[] = [];
  const router = new ApiRouter()
    .route({
      method: 'post',
      path: '/boxes/:id/notes',
      summary: 'Add a note',
      params: z.strictObject({ id: z.uuid('must be a UUID') }),
      body: z.strictObject({ text: z.string().trim().min(1, 'must not be empty').max(20) }),
      response: z.object({ id: z.string(), text: z.string() }).meta({ id: 'Note' }),
      status: 201,
      handler: ({ params, body }) => {
        created.push(body);
        return { id: params.id, text: body.text };
      },
    })
    .route({
      method: 'get',
      path: '/search',
      summary: 'Search',
      query: z.strictObject({ q: z.string().max(10), page: z.coerce.number().int().min(1).default(1) }),
      response: z.object({ q: z.string(), page: z.number() }),
      handler: ({ query }) => query,
    });

  let server: Server;
  let base: string;
  before(async () => {
    const app = express();
    app.use(express.json());
    app.use('/api/v1', router.router);
    app.use(errorHandler(testLogger));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => (created.length = 0));

  const post = (p: string, body: unknown) =>
    fetch(`${base}${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const id = '5b3d2f0e-9a6c-4e43-8a57-0c1d2e3f4a5b';

  it('passes parsed input to the handler and answers with its status', async () => {
    const res = await post(`/boxes/${id}/notes`, { text: '  hello ' });
    expect(res.status).to.equal(201);
    expect(await res.json()).to.deep.equal({ id, text: 'hello' });
  });

  it('refuses an invalid field with a 400 naming the field, and runs nothing', async () => {
    const res = await post(`/boxes/${id}/notes`, { text: '   ' });
    expect(res.status).to.equal(400);
    expect(await res.json()).to.deep.equal({
      statusCode: 400,
      message: 'text: must not be empty.',
      error: 'Bad Request',
    });
    expect(created).to.have.length(0);
  });

  it('refuses unknown fields', async () => {
    const res = await post(`/boxes/${id}/notes`, { text: 'hi', admin: true });
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { message: string }).message).to.equal(
      'Unknown field in request body: admin.',
    );
    expect(created).to.have.length(0);
  });

  it('refuses a missing body', async () => {
    const res = await fetch(`${base}/boxes/${id}/notes`, { method: 'POST' });
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { message: string }).message).to.match(/^Invalid request body/);
  });

  it('validates path parameters', async () => {
    const res = await post('/boxes/not-a-uuid/notes', { text: 'hi' });
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { message: string }).message).to.equal('id: must be a UUID.');
  });

  it('coerces and defaults query parameters, and refuses unknown ones', async () => {
    expect(await (await fetch(`${base}/search?q=box`)).json()).to.deep.equal({ q: 'box', page: 1 });
    const bad = await fetch(`${base}/search?q=box&debug=1`);
    expect(bad.status).to.equal(400);
    expect(((await bad.json()) as { message: string }).message).to.equal(
      'Unknown field in query string: debug.',
    );
  });

  it('documents each route under its OpenAPI path with its schemas', () => {
    const doc = buildOpenApiDocument({ version: '1', serverUrl: 'http://x', paths: router.paths('/api/v1') });
    const op = doc.paths?.['/api/v1/boxes/{id}/notes']?.post;
    expect(op?.summary).to.equal('Add a note');
    expect(op?.parameters).to.deep.include({
      in: 'path',
      name: 'id',
      required: true,
      schema: {
        type: 'string',
        format: 'uuid',
        pattern: op?.parameters && (op.parameters[0] as { schema: { pattern: string } }).schema.pattern,
      },
    });
    expect(op?.responses).to.have.keys('201', '400');
    expect(doc.components?.schemas).to.have.property('Note');
    expect(
      doc.paths?.['/api/v1/search']?.get?.parameters?.map((p) => ('name' in p ? p.name : '')),
    ).to.deep.equal(['q', 'page']);
  });
});
