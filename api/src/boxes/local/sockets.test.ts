import { expect } from 'chai';
import { parseBoxSockets } from './sockets.ts';

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

  it('reads nothing from empty or unreadable tables', () => {
    expect(parseBoxSockets(['', HEADER])).to.deep.equal({ openPorts: {}, sshClients: [] });
  });
});
