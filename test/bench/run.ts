// Throughput of our stack (the API exactly as `make run` serves it) against a raw
// node:http JSON endpoint, measured with autocannon in the same run: /healthz (goal:
// >= 0.45 of raw) and GET /api/v1/users/me with a bearer token (JWT check, session
// check, user load). Rounds alternate between targets so that drift on a shared machine
// hits all alike; medians and ratios are printed. Then the time of one password hash
// with the production argon2id settings (target: <= 250 ms).
//
//   node test/bench/run.ts            (or: make bench)
//   BENCH_ROUNDS=5 BENCH_SECONDS=10 BENCH_CONNECTIONS=100 node test/bench/run.ts
import { fork } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { loadConfig } from '../../api/src/config.ts';
import { PasswordHasher } from '../../api/src/auth/passwords.ts';
import { createVerifiedAccount } from '../support/accounts.ts';
import { freePort, startPlatform } from '../support/platform.ts';

const GOAL = 0.45;
const HASH_TARGET_MS = 250;
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

async function measure(label: string, url: string, headers: Record<string, string> = {}): Promise<number> {
  const result = await autocannon({ url, connections, duration: seconds, headers });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${label}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  }
  return result.requests.average;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const rawPort = await freePort();
const raw = fork(path.join(import.meta.dirname, 'raw-server.ts'), [String(rawPort)], { stdio: 'inherit' });
await new Promise((resolve) => raw.once('message', resolve));
const platform = await startPlatform({ env: { LOG_LEVEL: 'warn' } });

const session = await createVerifiedAccount(platform, {
  handle: 'bench_operator',
  email: 'bench@example.test',
  password: 'benchmark passphrase',
});
const bearer = { authorization: `Bearer ${session.accessToken}` };

const targets = [
  { label: 'raw node:http JSON', url: `http://127.0.0.1:${rawPort}/`, headers: {}, rps: [] as number[] },
  { label: 'Exploit Grid API /healthz', url: `${platform.url}/healthz`, headers: {}, rps: [] as number[] },
  {
    label: 'GET /api/v1/users/me',
    url: `${platform.url}/api/v1/users/me`,
    headers: bearer,
    rps: [] as number[],
  },
];
try {
  console.log(`autocannon: ${connections} connections, ${rounds} alternating rounds of ${seconds} s each\n`);
  // Warm up both (JIT, sockets) before measuring.
  for (const target of targets)
    await autocannon({ url: target.url, connections, duration: 2, headers: target.headers });
  for (let round = 0; round < rounds; round++) {
    for (const target of targets) target.rps.push(await measure(target.label, target.url, target.headers));
  }
  for (const target of targets) {
    const rounded = target.rps.map((r) => Math.round(r));
    console.log(
      `${target.label.padEnd(28)} median ${String(Math.round(median(target.rps))).padStart(7)} req/s   rounds ${rounded.join(', ')}`,
    );
  }
  const raw = median(targets[0]!.rps);
  const ratio = median(targets[1]!.rps) / raw;
  console.log(
    `\nratio /healthz / raw:   ${ratio.toFixed(2)}   goal: >= ${GOAL}   ${ratio >= GOAL ? 'MET' : 'NOT MET'}`,
  );
  console.log(`ratio /users/me / raw:  ${(median(targets[2]!.rps) / raw).toFixed(2)}   (no goal set)`);

  // Password hashing with the production settings (the configuration defaults), one at a time.
  const defaults = loadConfig({});
  const hasher = new PasswordHasher({ ...defaults.argon2, concurrency: 1 });
  await hasher.hash('warm up the allocator');
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await hasher.hash(`correct horse battery staple ${i}`);
    times.push(performance.now() - started);
  }
  const hashMs = median(times);
  const rounded = times.map((t) => t.toFixed(0)).join(', ');
  console.log(
    `argon2id hash (${defaults.argon2.memoryKiB} KiB, t=${defaults.argon2.timeCost}): median ${hashMs.toFixed(0)} ms (${rounded})   target: <= ${HASH_TARGET_MS} ms   ${hashMs <= HASH_TARGET_MS ? 'MET' : 'NOT MET'}`,
  );
  process.exitCode = ratio >= GOAL && hashMs <= HASH_TARGET_MS ? 0 : 1;
} finally {
  raw.kill('SIGTERM');
  await platform.stop();
}
