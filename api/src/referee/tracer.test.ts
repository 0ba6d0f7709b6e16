import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createLogger } from '../logger.ts';
import { Tracer } from './tracer.ts';

describe('referee: the trace file', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(path.join(os.tmpdir(), 'eg-tracer-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('is emptied once it reaches the size asked for, and not before', async () => {
    const tracer = new Tracer({
      dir,
      script: '',
      logger: createLogger({ logLevel: 'silent', logFormat: 'json' }),
    });
    const file = path.join(dir, 'trace.log');
    await writeFile(file, 'Z 1 1\n'.repeat(1000));
    expect(await tracer.rotate(6001)).to.equal(false);
    expect((await stat(file)).size).to.equal(6000);
    // Without a size: the default (no attack needs its history), far above this one.
    expect(await tracer.rotate()).to.equal(false);
    expect(await tracer.rotate(6000)).to.equal(true);
    expect((await stat(file)).size).to.equal(0);
  });
});
