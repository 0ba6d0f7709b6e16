import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  apiDataDirOf,
  freePort,
  mainScript,
  repoRoot,
  startPlatform,
  type RunningPlatform,
} from '../support/platform.ts';
import { until } from '../support/until.ts';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the platform process', () => {
  describe('HTTP endpoints', () => {
    let platform: RunningPlatform;
    before(async () => (platform = await startPlatform()));
    after(() => platform?.stop());

    it('answers /healthz and /readyz', async () => {
      const health = await fetch(`${platform.url}/healthz`);
      expect(health.status).to.equal(200);
      expect(await health.json()).to.deep.equal({ status: 'ok' });
      const ready = await fetch(`${platform.url}/readyz`);
      expect(ready.status).to.equal(200);
      expect(await ready.json()).to.deep.equal({ status: 'ok', checks: { database: 'ok' } });
    });

    it('serves the OpenAPI document', async () => {
      const res = await fetch(`${platform.url}/api/v1/openapi.json`);
      expect(res.status).to.equal(200);
      const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
      expect(doc.openapi).to.equal('3.1.0');
      expect(doc.paths).to.include.keys('/healthz', '/readyz');
    });
  });

  it('refuses a bad configuration value with a clear message and exit code 1', async () => {
    const child = spawn(process.execPath, [mainScript], {
      cwd: repoRoot,
      env: { ...process.env, PORT: 'not-a-port', LOG_LEVEL: 'chatty', ORCHESTRATOR: 'none' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).to.equal(1);
    expect(stderr).to.include('Invalid configuration:');
    expect(stderr).to.include('PORT="not-a-port": must be a number');
    expect(stderr).to.include('LOG_LEVEL="chatty": must be one of');
  });

  it('stops everything on Ctrl-C (SIGINT to the whole process group), embedded PostgreSQL included', async () => {
    const platform = await startPlatform({ processGroup: true });
    // Up, not only answering: Ctrl-C while it still starts also stops PostgreSQL under it (the case
    // of a signal during the start is the SIGTERM test's below).
    await until('the platform up', async () => platform.output().includes('Exploit Grid is up'), 20_000);
    const pgPid = Number(
      (await readFile(path.join(platform.apiDataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0],
    );
    expect(isAlive(pgPid)).to.equal(true);
    const code = await platform.stop('SIGINT');
    expect(code).to.equal(0);
    expect(isAlive(platform.process.pid!)).to.equal(false);
    expect(isAlive(pgPid)).to.equal(false);
  });

  it('stops everything on SIGTERM to the API process alone (as Kubernetes does)', async () => {
    const platform = await startPlatform();
    const pgPid = Number(
      (await readFile(path.join(platform.apiDataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0],
    );
    expect(await platform.stop('SIGTERM')).to.equal(0);
    expect(isAlive(pgPid)).to.equal(false);
  });

  it('stops everything on SIGTERM while it is still starting', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eg-e2e-early-'));
    try {
      const child = spawn(process.execPath, [mainScript], {
        cwd: repoRoot,
        env: {
          ...process.env,
          PORT: String(await freePort()),
          DATA_DIR: dataDir,
          LOG_FORMAT: 'json',
          ORCHESTRATOR: 'none',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      let output = '';
      // The database is up, the rest of the platform not yet.
      await new Promise<void>((resolve) =>
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('Started embedded PostgreSQL')) resolve();
        }),
      );
      const pgPid = Number(
        (await readFile(path.join(apiDataDirOf(dataDir), 'postgres', 'postmaster.pid'), 'utf8')).split(
          '\n',
        )[0],
      );
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
      expect(isAlive(pgPid)).to.equal(false);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('reuses its data on a second start: no new cluster, no migrations to apply', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eg-e2e-reuse-'));
    try {
      const first = await startPlatform({ dataDir });
      expect(first.output()).to.include('Initialising embedded PostgreSQL cluster');
      expect(first.output()).to.include('Applied database migrations');
      expect(await first.stop()).to.equal(0);

      const second = await startPlatform({ dataDir });
      expect(second.output()).not.to.include('Initialising embedded PostgreSQL cluster');
      expect(second.output()).not.to.include('Applied database migrations');
      expect((await fetch(`${second.url}/readyz`)).status).to.equal(200);
      expect(await second.stop()).to.equal(0);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the platform process, when its port is taken', () => {
  it('says so plainly and exits with code 1', async () => {
    const first = await startPlatform();
    try {
      const port = new URL(first.url).port;
      const child = spawn(process.execPath, [mainScript], {
        cwd: repoRoot,
        env: {
          ...process.env,
          PORT: port,
          DATA_DIR: first.dataDir + '-second',
          LOG_FORMAT: 'json',
          ORCHESTRATOR: 'none',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).to.equal(1);
      expect(output).to.include(
        `Port ${port} on 127.0.0.1 is already in use: stop the other process or set PORT.`,
      );
      // The embedded PostgreSQL it had started is stopped again.
      expect(output).to.include('Stopped embedded PostgreSQL');
    } finally {
      await first.stop();
      await rm(`${first.dataDir}-second`, { recursive: true, force: true });
    }
  });
});
