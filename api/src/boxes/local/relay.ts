import dgram from 'node:dgram';
import net from 'node:net';
import os from 'node:os';
import type { Logger } from '../../logger.ts';

const UDP_IDLE_MS = 5 * 60_000;

/**
 * Carries VPN traffic from the host's public port to the OpenVPN servers in the router
 * namespace, so players anywhere reach them without the host's own firewall or routes being
 * touched. TCP is piped; UDP keeps one upstream socket per client address.
 */
export class VpnRelay {
  readonly #log: Logger;
  readonly #closers: (() => Promise<void>)[] = [];
  udpPort = 0;
  tcpPort = 0;

  constructor(logger: Logger) {
    this.#log = logger.child({ component: 'vpn-relay' });
  }

  async listen(options: {
    host: string;
    udpPort: number;
    tcpPort: number;
    target: string;
    targetPort: number;
  }): Promise<void> {
    const { host, target, targetPort } = options;
    const sockets = new Set<net.Socket>();
    const tcp = net.createServer((client) => {
      const upstream = net.connect(targetPort, target);
      sockets.add(client).add(upstream);
      const end = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(options.tcpPort, host, () => resolve());
    });
    this.tcpPort = (tcp.address() as net.AddressInfo).port;
    this.#closers.push(
      () =>
        new Promise((resolve) => {
          for (const socket of sockets) socket.destroy();
          tcp.close(() => resolve());
        }),
    );

    // A reply must leave from the address the client wrote to, or OpenVPN drops it. Node
    // cannot read a datagram's destination, so a wildcard listen binds every local address
    // separately (and picks up addresses that appear later).
    const flows = new Map<string, { socket: dgram.Socket; last: number }>();
    const listeners = new Map<string, dgram.Socket>();
    const bindUdp = async (address: string, port: number): Promise<number> => {
      const udp = dgram.createSocket(net.isIPv6(address) ? 'udp6' : 'udp4');
      udp.on('message', (message, from) => {
        const key = `${address}|${from.address}|${from.port}`;
        let flow = flows.get(key);
        if (!flow) {
          const socket = dgram.createSocket('udp4');
          socket.on('message', (reply) => udp.send(reply, from.port, from.address));
          socket.on('error', (err) => this.#log.debug({ err }, 'UDP relay flow error'));
          flow = { socket, last: Date.now() };
          flows.set(key, flow);
          socket.connect(targetPort, target, () => socket.send(message));
          return;
        }
        flow.last = Date.now();
        try {
          flow.socket.send(message);
        } catch {
          // not connected yet; OpenVPN retransmits
        }
      });
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(port, address, () => {
          udp.off('error', reject);
          resolve();
        });
      });
      udp.on('error', (err) => this.#log.warn({ err, address }, 'UDP relay socket error'));
      listeners.set(address, udp);
      return udp.address().port;
    };
    const wildcard = host === '0.0.0.0';
    const localAddresses = () =>
      Object.values(os.networkInterfaces())
        .flat()
        .filter((a) => a && a.family === 'IPv4' && a.address !== target)
        .map((a) => a!.address);
    if (wildcard) {
      const [first, ...rest] = localAddresses();
      this.udpPort = await bindUdp(first ?? '127.0.0.1', options.udpPort);
      for (const address of rest) await bindUdp(address, this.udpPort).catch(() => undefined);
    } else this.udpPort = await bindUdp(host, options.udpPort);
    const sweep = setInterval(() => {
      const now = Date.now();
      for (const [key, flow] of flows) {
        if (now - flow.last > UDP_IDLE_MS) {
          flow.socket.close();
          flows.delete(key);
        }
      }
      if (wildcard)
        for (const address of localAddresses())
          if (!listeners.has(address)) bindUdp(address, this.udpPort).catch(() => undefined);
    }, 10_000);
    sweep.unref();
    this.#closers.push(async () => {
      clearInterval(sweep);
      for (const flow of flows.values()) flow.socket.close();
      for (const udp of listeners.values()) await new Promise<void>((resolve) => udp.close(() => resolve()));
    });
    this.#log.info({ host, udp: this.udpPort, tcp: this.tcpPort }, 'VPN relay listening');
  }

  async close(): Promise<void> {
    for (const close of this.#closers.splice(0).reverse()) await close();
  }
}
