import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot, type RunningPlatform } from './platform.ts';

/**
 * Runs the built staff CLI (`api/dist/staff.js`, as `make staff` does) on a running platform: a process of its
 * own that finds the platform's embedded PostgreSQL through DATA_DIR. Rejects when it exits with an error.
 */
export async function runStaffCli(
  platform: Pick<RunningPlatform, 'dataDir'>,
  ...args: string[]
): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [path.join(repoRoot, 'api/dist/staff.js'), ...args], {
    env: { ...process.env, DATA_DIR: platform.dataDir, STAFF_ACTOR: 'e2e' },
  });
}
