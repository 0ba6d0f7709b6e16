// Throughput of our stack's /healthz (the Express application exactly as `make run`
// serves it) against a raw node:http JSON endpoint, measured with autocannon in the
// same run. Rounds alternate between the two so that drift on a shared machine hits
// both alike; the medians and their ratio are printed.
//
//   node test/bench/run.ts            (or: make bench)
//   BENCH_ROUNDS=5 BENCH_SECONDS=10 BENCH_CONNECTIONS=100 node test/bench/run.ts
import { fork } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort, startPlatform } from '../support/platform.ts';

const GOAL = 0.45;
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

async function measure(label: string, url: string): Promise<number> {
  const result = await autocannon({ url, connections, duration: seconds });
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

const targets = [
  { label: 'raw node:http JSON', url: `http://127.0.0.1:${rawPort}/`, rps: [] as number[] },
  { label: 'Exploit Grid API /healthz', url: `${platform.url}/healthz`, rps: [] as number[] },
];
try {
  console.log(`autocannon: ${connections} connections, ${rounds} alternating rounds of ${seconds} s each\n`);
  // Warm up both (JIT, sockets) before measuring.
  for (const target of targets) await autocannon({ url: target.url, connections, duration: 2 });
  for (let round = 0; round < rounds; round++) {
    for (const target of targets) target.rps.push(await measure(target.label, target.url));
  }
  for (const target of targets) {
    const rounded = target.rps.map((r) => Math.round(r));
    console.log(
      `${target.label.padEnd(28)} median ${String(Math.round(median(target.rps))).padStart(7)} req/s   rounds ${rounded.join(', ')}`,
    );
  }
  const ratio = median(targets[1]!.rps) / median(targets[0]!.rps);
  console.log(
    `\nratio (ours / raw): ${ratio.toFixed(2)}   goal: >= ${GOAL}   ${ratio >= GOAL ? 'MET' : 'NOT MET'}`,
  );
  process.exitCode = ratio >= GOAL ? 0 : 1;
} finally {
  raw.kill('SIGTERM');
  await platform.stop();
}
