import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const STAFF_CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'staff.ts');

export interface StaffRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the staff CLI as staff would: a process of its own, on the platform's database, as `actor`. */
export async function runStaff(databaseUrl: string, actor: string, ...args: string[]): Promise<StaffRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--conditions=source', STAFF_CLI, ...args],
      { env: { ...process.env, DATABASE_URL: databaseUrl, STAFF_ACTOR: actor } },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const { code, stdout, stderr } = err as StaffRun;
    return { code, stdout, stderr };
  }
}
