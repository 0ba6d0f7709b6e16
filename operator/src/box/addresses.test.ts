import { expect } from 'chai';
import { allocateBoxAddress, inSubnet, parseSubnet } from './addresses.ts';

describe('Arena addresses', () => {
  const subnet = parseSubnet('172.30.0.0/16');

  it('gives boxes the lowest free address after the routers’ /24', () => {
    expect(allocateBoxAddress(subnet, [])).to.equal('172.30.1.1');
    expect(allocateBoxAddress(subnet, ['172.30.1.1', '172.30.1.3'])).to.equal('172.30.1.2');
    const firstRow = Array.from({ length: 255 }, (_, i) => `172.30.1.${i + 1}`);
    expect(allocateBoxAddress(subnet, firstRow)).to.equal('172.30.2.1');
  });

  it('answers undefined when the subnet is full, never the broadcast address', () => {
    const small = parseSubnet('10.0.0.0/23');
    const used = Array.from({ length: 254 }, (_, i) => `10.0.1.${i + 1}`);
    expect(allocateBoxAddress(small, used.slice(0, 253))).to.equal('10.0.1.254');
    expect(allocateBoxAddress(small, used)).to.equal(undefined);
  });

  it('rejects bad subnets and knows what is a box address', () => {
    expect(() => parseSubnet('172.30.0.0/24')).to.throw('/8 to /23');
    expect(() => parseSubnet('172.30.0.1/16')).to.throw('host bits');
    expect(() => parseSubnet('nonsense')).to.throw('IPv4 CIDR');
    expect(inSubnet(subnet, '172.30.1.5')).to.equal(true);
    expect(inSubnet(subnet, '172.30.0.10')).to.equal(false);
    expect(inSubnet(subnet, '10.0.0.1')).to.equal(false);
  });
});
