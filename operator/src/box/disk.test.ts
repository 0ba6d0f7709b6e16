import { expect } from 'chai';
import { DISK_ANNOTATIONS, dataVolumeFor, diskFits, quantityBytes } from './disk.ts';

describe('Box disks', () => {
  const disk = (over: { snapshot?: string } = {}) =>
    dataVolumeFor({
      name: 'box-1-disk',
      namespace: 'arena',
      image: 'exploit-grid/box-debian:bookworm',
      settings: { size: '5Gi' },
      labels: { 'exploitgrid.io/box': 'box-1' },
      ...over,
    });

  it('imports the image through the node, or copies a snapshot for a restore', () => {
    expect(disk().spec.source).to.deep.equal({
      registry: { url: 'docker://exploit-grid/box-debian:bookworm', pullMethod: 'node' },
    });
    expect(disk({ snapshot: 'snap-1' }).spec.source).to.deep.equal({
      snapshot: { namespace: 'arena', name: 'snap-1' },
    });
    // Kept after the import (CDI may garbage-collect completed DataVolumes), with what it is made of.
    expect(disk().metadata.annotations).to.include({
      'cdi.kubevirt.io/storage.deleteAfterCompletion': 'false',
      [DISK_ANNOTATIONS.image]: 'exploit-grid/box-debian:bookworm',
      [DISK_ANNOTATIONS.size]: '5Gi',
    });
  });

  it('fits a box of its image and size only', () => {
    expect(diskFits(disk(), 'exploit-grid/box-debian:bookworm', { size: '5Gi' })).to.equal(true);
    expect(diskFits(disk(), 'exploit-grid/box-debian:trixie', { size: '5Gi' })).to.equal(false);
    expect(diskFits(disk(), 'exploit-grid/box-debian:bookworm', { size: '8Gi' })).to.equal(false);
  });

  it('reads quantities in bytes, and what is none as 0', () => {
    expect(quantityBytes('4Gi')).to.equal(4 * 2 ** 30);
    expect(quantityBytes('1500M')).to.equal(1.5e9);
    expect(quantityBytes('512Mi')).to.equal(512 * 2 ** 20);
    expect(quantityBytes('1.5Gi')).to.equal(1.5 * 2 ** 30);
    expect(quantityBytes('123')).to.equal(123);
    for (const none of [undefined, '', 'lots', '-1Gi', '4 Gi']) expect(quantityBytes(none)).to.equal(0);
  });
});
