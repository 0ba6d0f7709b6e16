import { expect } from 'chai';
import { realHost } from './openvpn.ts';

describe('the address a VPN client connects from, as OpenVPN lists it', () => {
  it('keeps the host of "Real Address" and drops the port and any protocol before it', () => {
    expect(realHost('203.0.113.5:51234')).to.equal('203.0.113.5');
    expect(realHost('udp4:203.0.113.5:51234')).to.equal('203.0.113.5');
    expect(realHost('tcp4-server:198.51.100.7:40000')).to.equal('198.51.100.7');
    expect(realHost('[2001:db8::5]:51234')).to.equal('2001:db8::5');
    expect(realHost('203.0.113.5')).to.equal('203.0.113.5');
  });

  it('answers null for what is no address', () => {
    expect(realHost('')).to.equal(null);
    expect(realHost('unknown')).to.equal(null);
  });
});
