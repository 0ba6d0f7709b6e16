import { expect } from 'chai';
import { MAX_SSH_CLIENTS, parseBoxSockets } from './sockets.ts';

const HEADER =
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
/** A line of /proc/net/tcp{,6} with the fields the parser reads. */
const line = (local: string, remote: string, state: string) =>
  `   0: ${local} ${remote} ${state} 00000000:00000000 00:00000000 00000000     0        0 12345 1`;

describe('a box’s sockets as the host reads them (/proc/PID/net/tcp of the box)', () => {
  it('lists the ports listening beyond loopback, named when known', () => {
    const tcp = [
      HEADER,
      line('00000000:0016', '00000000:0000', '0A'),
      line('0100007F:0CEA', '00000000:0000', '0A'),
      line('0201420A:1F90', '00000000:0000', '0A'),
    ].join('\n');
    const tcp6 = [
      HEADER,
      line('00000000000000000000000000000000:0050', '00000000000000000000000000000000:0000', '0A'),
    ].join('\n');
    expect(parseBoxSockets([tcp, tcp6]).openPorts).to.deep.equal({
      '22': 'ssh',
      '8080': 'http-alt',
      '80': 'http',
    });
  });

  it('names the peers of connections to port 22: established, closing or just ended, not half-open', () => {
    const tcp = [
      HEADER,
      line('00000000:0016', '00000000:0000', '0A'),
      // 10.8.0.6 logged in; 10.8.0.7 just logged out (TIME_WAIT); 10.8.0.8 only sent a SYN.
      line('0201420A:0016', '0600080A:D431', '01'),
      line('0201420A:0016', '0600080A:D432', '01'),
      line('0201420A:0016', '0700080A:C000', '06'),
      line('0201420A:0016', '0800080A:C001', '03'),
      // The box's own connection out to port 22 elsewhere, and another port's client.
      line('0201420A:B000', '0900080A:0016', '01'),
      line('0201420A:0050', '0A00080A:C002', '01'),
    ].join('\n');
    const tcp6 = [
      HEADER,
      // ::ffff:10.9.0.2 through a dual-stack listener.
      line('0000000000000000FFFF00000201420A:0016', '0000000000000000FFFF00000200090A:E000', '01'),
    ].join('\n');
    expect(parseBoxSockets([tcp, tcp6]).sshClients).to.deep.equal(['10.8.0.6', '10.8.0.7', '10.9.0.2']);
  });

  it('leaves out the box talking to itself, and tells a few peers of a table a box flooded', () => {
    const hex = (a: number, b: number, c: number, d: number) =>
      [d, c, b, a].map((n) => n.toString(16).padStart(2, '0').toUpperCase()).join('');
    const lines = [HEADER, line('0100007F:0016', '0500007F:C000', '06')];
    // 60,000 peers in TIME_WAIT (a box that binds 127.x.y.z sources or addresses of its own on lo).
    for (let i = 0; i < 60_000; i++)
      lines.push(line('0201420A:0016', `${hex(10, 200 + (i >> 16), (i >> 8) & 255, i & 255)}:C000`, '06'));
    const clients = parseBoxSockets([lines.join('\n')]).sshClients;
    expect(clients).to.have.length(MAX_SSH_CLIENTS);
    expect(clients).to.not.include('127.0.0.5');
    expect(clients[0]).to.equal('10.200.0.0');
  });

  it('reads nothing from empty or unreadable tables', () => {
    expect(parseBoxSockets(['', HEADER])).to.deep.equal({ openPorts: {}, sshClients: [] });
  });
});
