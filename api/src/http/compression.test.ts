import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import express from 'express';
import { apiCompression, COMPRESS_FROM_BYTES } from './compression.ts';

describe('compression of API answers', () => {
  let server: Server;
  let baseUrl: string;
  const large = { items: 'x'.repeat(COMPRESS_FROM_BYTES * 4) };

  before(async () => {
    const app = express();
    app.use('/api', apiCompression());
    app.get('/api/v1/leaderboard', (_req, res) => void res.json(large));
    app.get('/api/v1/small', (_req, res) => void res.json({ ok: true }));
    app.post('/api/v1/auth/refresh', (_req, res) => void res.json({ access_token: 't'.repeat(4096) }));
    app.get('/api/ai/v1/stream', (_req, res) => {
      res.setHeader('Content-Type', 'text/event-stream');
      res.write(`data: ${'y'.repeat(COMPRESS_FROM_BYTES * 2)}\n\n`);
      res.end();
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const get = (p: string, accept: string, method = 'GET') =>
    fetch(baseUrl + p, { method, headers: { 'Accept-Encoding': accept } });

  it('compresses an answer of 1 kB and more with brotli when the client accepts it, else gzip', async () => {
    const br = await get('/api/v1/leaderboard', 'gzip, deflate, br');
    expect(br.headers.get('content-encoding')).to.equal('br');
    expect(br.headers.get('vary')).to.equal('Accept-Encoding');
    expect(await br.json()).to.deep.equal(large);
    expect((await get('/api/v1/leaderboard', 'gzip')).headers.get('content-encoding')).to.equal('gzip');
    expect((await get('/api/v1/leaderboard', 'identity')).headers.get('content-encoding')).to.equal(null);
  });

  it('sends an answer under 1 kB as it is', async () => {
    expect((await get('/api/v1/small', 'br')).headers.get('content-encoding')).to.equal(null);
  });

  it('never compresses the auth endpoints, whose answers carry tokens (BREACH)', async () => {
    const res = await get('/api/v1/auth/refresh', 'br', 'POST');
    expect(res.headers.get('content-encoding')).to.equal(null);
    expect(((await res.json()) as { access_token: string }).access_token).to.have.length(4096);
    // Express routes /API/V1/Auth/refresh to the same handler: it is not compressed either.
    const shouted = await get('/API/V1/Auth/refresh', 'br', 'POST');
    expect(shouted.status).to.equal(200);
    expect(shouted.headers.get('content-encoding')).to.equal(null);
  });

  it('never compresses an event stream, whose events must not wait in a compressor', async () => {
    const res = await get('/api/ai/v1/stream', 'br');
    expect(res.headers.get('content-encoding')).to.equal(null);
    expect(await res.text()).to.match(/^data: y+\n\n$/);
  });
});
