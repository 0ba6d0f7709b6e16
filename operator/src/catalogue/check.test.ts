import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { expect } from 'chai';
import {
  CheckNotRun,
  runCheck,
  runChecks,
  type CheckTransports,
  type HttpRequest,
  type TcpExchange,
} from './check.ts';

/** Node's own fetch, as the platform makes the request. */
const request: HttpRequest = async (url, init) => {
  const res = await fetch(url, {
    method: init.method,
    signal: AbortSignal.timeout(init.timeoutMs),
    ...(init.form ? { body: new URLSearchParams(init.form) } : {}),
  });
  return { status: res.status, body: await res.text() };
};

/** A plain TCP client, as the platform's. */
const exchange: TcpExchange = (address, port, init) =>
  new Promise((resolve, reject) => {
    let received = '';
    const socket = net.connect(port, address, () => socket.write(init.send));
    const done = () => {
      socket.destroy();
      resolve(received);
    };
    socket.setTimeout(init.timeoutMs, done);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes(init.contains)) done();
    });
    socket.on('end', done);
    socket.on('error', reject);
  });
const transports: CheckTransports = { http: request, tcp: exchange };

describe('service checks', () => {
  let server: http.Server;
  let port: number;
  let answer: (url: URL, body: string) => [number, string] = () => [200, 'ok'];
  const seen: { method: string; url: string; body: string }[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, body });
        const [status, text] = answer(new URL(req.url!, 'http://box'), body);
        res.writeHead(status).end(text);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => server.close());

  it('passes when the service answers the honest request as it should, with a fresh nonce each time', async () => {
    answer = (url) => [200, `Hello ${url.searchParams.get('name')}!`];
    const check = {
      type: 'http' as const,
      port,
      path: '/hello?name={nonce}',
      method: 'GET' as const,
      status: 200,
      contains: 'Hello {nonce}!',
    };
    expect(await runCheck(check, '127.0.0.1', transports)).to.deep.equal({
      ok: true,
      detail: `port ${port}: answered as it should`,
    });
    await runCheck(check, '127.0.0.1', transports);
    const [a, b] = seen.slice(-2).map((s) => s.url);
    expect(a).to.match(/^\/hello\?name=[0-9a-f]{12}$/);
    expect(a).to.not.equal(b);
  });

  it('sends a form for POST checks', async () => {
    answer = (_url, body) => [201, `stored ${new URLSearchParams(body).get('note')}`];
    const check = {
      type: 'http' as const,
      port,
      path: '/notes',
      method: 'POST' as const,
      form: { note: 'n-{nonce}' },
      status: 201,
      contains: 'stored n-{nonce}',
    };
    expect((await runCheck(check, '127.0.0.1', transports)).ok).to.equal(true);
    expect(seen.at(-1)!.method).to.equal('POST');
  });

  it('fails on another status, an answer without what it must say, and no answer at all', async () => {
    const check = {
      type: 'http' as const,
      port,
      path: '/',
      method: 'GET' as const,
      status: 200,
      contains: 'pong',
    };
    answer = () => [500, 'pong'];
    expect(await runCheck(check, '127.0.0.1', transports)).to.deep.equal({
      ok: false,
      detail: `port ${port}: answered 500, not 200`,
    });
    answer = () => [200, 'Forbidden by the firewall of the defender'];
    expect((await runCheck(check, '127.0.0.1', transports)).detail).to.equal(
      `port ${port}: the answer lacks what the service must say`,
    );
    const closed = { ...check, port: 1 };
    const down = await runCheck(closed, '127.0.0.1', transports, 1000);
    expect(down.ok).to.equal(false);
    expect(down.detail).to.match(/^port 1: no answer/);
  });

  it('speaks a service’s own protocol over TCP: what it sends back must hold the nonce', async () => {
    // A datastore in miniature: SET stores, GET answers what was stored, one line each.
    const store = new Map<string, string>();
    const server = net.createServer((socket) => {
      let buffered = '';
      socket.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        let line: RegExpExecArray | null;
        while ((line = /^(.*?)\r\n/.exec(buffered))) {
          buffered = buffered.slice(line[0].length);
          const [verb, key, value] = line[1]!.split(' ');
          if (verb === 'SET') {
            store.set(key!, value!);
            socket.write('+OK\r\n');
          } else if (verb === 'GET') socket.write(`$${store.get(key!) ?? '-1'}\r\n`);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const tcpPort = (server.address() as AddressInfo).port;
    try {
      const check = {
        type: 'tcp' as const,
        port: tcpPort,
        send: 'SET eg-check {nonce}\r\nGET eg-check\r\n',
        contains: '${nonce}',
      };
      expect(await runCheck(check, '127.0.0.1', transports, 2000)).to.deep.equal({
        ok: true,
        detail: `port ${tcpPort}: answered as it should`,
      });
      // A "fix" that keeps the port open but stores nothing fails.
      store.set = () => store;
      const broken = await runCheck(check, '127.0.0.1', transports, 500);
      expect(broken).to.deep.equal({
        ok: false,
        detail: `port ${tcpPort}: the answer lacks what the service must say`,
      });
    } finally {
      server.close();
    }
    const down = await runCheck(
      { type: 'tcp', port: 1, send: 'PING\r\n', contains: '+PONG' },
      '127.0.0.1',
      transports,
      500,
    );
    expect(down.ok).to.equal(false);
    expect(down.detail).to.match(/^port 1: no answer/);
  });

  it('keeps a round whose one check the platform could not make, and voids one where none could be', async () => {
    const checks = [
      { type: 'tcp' as const, port: 22, send: '', contains: 'SSH-2.0-' },
      { type: 'tcp' as const, port: 6379, send: 'PING\r\n', contains: '+PONG' },
    ];
    const transports = (notRun: number[]): CheckTransports => ({
      http: () => Promise.reject(new Error('no http here')),
      tcp: async (_address, port) => {
        if (notRun.includes(port)) throw new CheckNotRun('the router let nothing through');
        return port === 22 ? 'SSH-2.0-OpenSSH' : '-ERR';
      },
    });
    expect(await runChecks(checks, '10.0.0.1', transports([6379]))).to.deep.equal([
      { ok: true, detail: 'port 22: answered as it should' },
      { ok: false, notRun: true, detail: 'port 6379: not checked (the router let nothing through)' },
    ]);
    expect(await runChecks(checks, '10.0.0.1', transports([]))).to.deep.equal([
      { ok: true, detail: 'port 22: answered as it should' },
      { ok: false, detail: 'port 6379: the answer lacks what the service must say' },
    ]);
    const error = await runChecks(checks, '10.0.0.1', transports([22, 6379])).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(CheckNotRun);
  });
});
