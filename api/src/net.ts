import dgram from 'node:dgram';
import net from 'node:net';

/**
 * A TCP port free on 127.0.0.1 right now (the embedded database and tests listen on one), other than `avoid`:
 * ports this process is about to listen on itself (the API's own, free until it binds it).
 */
export async function freeLoopbackPort(avoid: readonly number[] = []): Promise<number> {
  for (;;) {
    const port = await anyFreeLoopbackPort();
    if (!avoid.includes(port)) return port;
  }
}

function anyFreeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A port no process on this host uses for TCP or UDP on any address (the VPN's, served on both). */
export async function freeTcpUdpPort(): Promise<number> {
  for (;;) {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', () => resolve()));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const udp = dgram.createSocket('udp4');
    const ok = await new Promise<boolean>((resolve) => {
      udp.once('error', () => resolve(false));
      udp.bind(port, '0.0.0.0', () => resolve(true));
    });
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    if (ok) return port;
  }
}
