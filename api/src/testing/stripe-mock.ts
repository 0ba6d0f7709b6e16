import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/** stripe-mock on a loopback port: Stripe's API as Stripe specifies it, for the real stripe SDK. */
export interface StripeMock {
  /** Base URL for STRIPE_API_URL, e.g. http://127.0.0.1:41234. */
  url: string;
  close(): Promise<void>;
}

const repoRoot = path.resolve(import.meta.dirname, '../../..');

/**
 * Starts stripe-mock, built once by hack/ensure-stripe-mock.sh (`make test-unit` runs it first; here it
 * only prints the cached binary's path). It picks its own free loopback ports, and says which.
 */
export async function startStripeMock(): Promise<StripeMock> {
  const { stdout } = await promisify(execFile)(path.join(repoRoot, 'hack/ensure-stripe-mock.sh'), {
    timeout: 600_000,
  });
  const binary = stdout.trim().split('\n').at(-1)!;
  // Both listeners on loopback (its HTTPS one would otherwise take port 12112 on every address).
  const child = spawn(binary, ['-http-addr', '127.0.0.1:', '-https-addr', '127.0.0.1:'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stripe-mock did not start: ${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /Listening for HTTP at address: 127\.0\.0\.1:(\d+)/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(Number(found[1]));
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`stripe-mock exited (${code}): ${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
