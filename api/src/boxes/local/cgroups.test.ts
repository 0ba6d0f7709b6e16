import { expect } from 'chai';
import { formatCpuList, parseCpuList, resolvePlayerCpus } from './cgroups.ts';

describe('players’ CPUs (PLAYER_CPUS)', () => {
  it('reads and writes the kernel’s CPU lists', () => {
    expect(parseCpuList('0-3,6,8-9')).to.deep.equal([0, 1, 2, 3, 6, 8, 9]);
    expect(parseCpuList('0')).to.deep.equal([0]);
    expect(formatCpuList([1, 2, 3])).to.equal('1,2,3');
  });

  it('keeps the first CPU for the platform on hosts with four or more, by default', () => {
    expect(resolvePlayerCpus('auto', [0, 1, 2, 3])).to.equal('1,2,3');
    expect(resolvePlayerCpus('auto', [0, 1, 2, 3, 4, 5, 6, 7])).to.equal('1,2,3,4,5,6,7');
    // Smaller hosts: a bound would cost the players half their CPU; name it to have it.
    expect(resolvePlayerCpus('auto', [0, 1])).to.equal(null);
    expect(resolvePlayerCpus('auto', [0])).to.equal(null);
  });

  it('takes a list of the host’s CPUs, leaves out those it does not have, and puts no bound for all or none', () => {
    expect(resolvePlayerCpus('1', [0, 1])).to.equal('1');
    expect(resolvePlayerCpus('1-2,7', [0, 1, 2, 3])).to.equal('1,2');
    expect(resolvePlayerCpus('4-5', [0, 1, 2, 3])).to.equal(null);
    expect(resolvePlayerCpus('0-3', [0, 1, 2, 3])).to.equal(null);
    expect(resolvePlayerCpus('all', [0, 1, 2, 3])).to.equal(null);
  });
});
