import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { CONSOLE_WRITER } from './machine.ts';

/** Feeds `input` to the box launcher's console writer, as nspawn's output would be, until its end. */
async function write(dir: string, input: Buffer, bytes: number): Promise<void> {
  const writer = spawn('sh', ['-c', CONSOLE_WRITER], {
    cwd: dir,
    env: { PATH: process.env.PATH, EG_CONSOLE_BYTES: String(bytes) },
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  const done = new Promise<number | null>((resolve) => writer.once('exit', resolve));
  // In pieces, as a pipe delivers them.
  for (let i = 0; i < input.length; i += 700) writer.stdin.write(input.subarray(i, i + 700));
  writer.stdin.end();
  expect(await done).to.equal(0);
}

describe('the box console writer (what a box launcher writes to the host, capped)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'eg-console-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('keeps at most two files of the set size, the newest bytes in console.log', async () => {
    const input = Buffer.from(
      Array.from({ length: 2500 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(''),
    );
    await write(dir, input, 1000);
    expect((await readdir(dir)).sort()).to.deep.equal(['console.log', 'console.log.1']);
    expect(await readFile(path.join(dir, 'console.log.1'))).to.deep.equal(input.subarray(1000, 2000));
    expect(await readFile(path.join(dir, 'console.log'))).to.deep.equal(input.subarray(2000));
  });

  it('starts a new file at each launch, keeping the last one', async () => {
    await write(dir, Buffer.from('first boot\n'), 1000);
    await write(dir, Buffer.from('second boot\n'), 1000);
    expect(await readFile(path.join(dir, 'console.log.1'), 'utf8')).to.equal('first boot\n');
    expect(await readFile(path.join(dir, 'console.log'), 'utf8')).to.equal('second boot\n');
    expect(existsSync(path.join(dir, 'console.log.2'))).to.equal(false);
  });
});
