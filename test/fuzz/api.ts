/**
 * `make test-api-fuzz`: Schemathesis over the API's OpenAPI document, as a signed-in player, against the
 * platform started as `make run` starts it (fresh DATA_DIR, no boxes). Fails on any finding.
 *
 *   node test/fuzz/api.ts <path of schemathesis' st>
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { appendFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createVerifiedAccount } from '../support/accounts.ts';
import { startPlatform } from '../support/platform.ts';

/**
 * What Schemathesis checks. Server errors above all (the point of the run), 405 with Allow for methods a
 * path does not serve, and that answers have the documented content type and shape.
 */
const CHECKS = [
  'not_a_server_error',
  'unsupported_method',
  'allow_header_conformance',
  'content_type_conformance',
  'response_schema_conformance',
];
/** Test cases per operation and phase: a few minutes on two cores for the whole document. */
const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 60);
/** Fixed by default, so a finding can be reproduced; FUZZ_SEED=random for new cases. */
const SEED = process.env.FUZZ_SEED ?? '1';

async function main(st: string | undefined): Promise<number> {
  if (!st) throw new Error('usage: node test/fuzz/api.ts <path of st> (make test-api-fuzz finds it)');
  const platform = await startPlatform({
    env: {
      // The fuzzer is one player sending thousands of calls a minute: the per-user limit is raised for it.
      USER_CALLS_PER_MINUTE: '100000',
    },
  });
  const reportDir = await mkdtemp(path.join(os.tmpdir(), 'eg-fuzz-'));
  try {
    const account = await createVerifiedAccount(platform, {
      handle: 'fuzzer',
      email: 'fuzzer@example.test',
      password: 'correct horse battery',
    });
    const args = [
      '--config-file',
      path.join(import.meta.dirname, 'schemathesis.toml'),
      'run',
      `${platform.url}/api/v1/openapi.json`,
      '--url',
      platform.url,
      '--header',
      `Authorization: Bearer ${account.accessToken}`,
      '--checks',
      CHECKS.join(','),
      '--max-examples',
      String(MAX_EXAMPLES),
      '--phases',
      'examples,coverage,fuzzing',
      // One worker: with two threads, Hypothesis on Python 3.11 now and then fails inside CPython's ast
      // module ('AST constructor recursion depth mismatch'), a runtime error that is no finding.
      '--workers',
      '1',
      '--suppress-health-check',
      'all',
      '--request-timeout',
      '10',
      ...(SEED === 'random' ? [] : ['--seed', SEED]),
      '--report',
      'junit',
      '--report-dir',
      reportDir,
    ];
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(st, args, {
        // Its cache (.schemathesis/) goes with the report, not into the repository.
        cwd: reportDir,
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, SCHEMATHESIS_TELEMETRY: 'false', NO_COLOR: process.env.NO_COLOR ?? '' },
      });
      // Its closing line ('==== 3 warnings in 56.13s ====') reads like pytest's, and CI took it for a run of
      // no tests: it is reworded. `make test` closes with the real counts.
      const lines = createInterface({ input: child.stdout });
      lines.on('line', (line) => process.stdout.write(`${schemathesisLine(line)}\n`));
      child.once('close', resolve);
    });
    // Besides what Schemathesis saw: every request the API logged as failed, but for the 503 of the box calls
    // on a platform without boxes (an HttpError it chose to answer).
    const serverErrors = platform
      .output()
      .split('\n')
      .filter((line) => line.includes('"Request failed"') && !line.includes('"statusCode":503'));
    if (serverErrors.length > 0)
      process.stderr.write(
        `The API logged ${serverErrors.length} failed request(s):\n${serverErrors.slice(0, 20).join('\n')}\n`,
      );
    await reportCounts(reportDir, serverErrors.length);
    return code === 0 && serverErrors.length === 0 ? 0 : 1;
  } finally {
    await platform.stop();
    await rm(reportDir, { recursive: true, force: true });
  }
}

/** Schemathesis' closing line, 'N warnings in 56.13s' between rules, as 'Schemathesis: N warnings (56.13 s)'. */
export function schemathesisLine(line: string): string {
  const closing = /^=*\s*(.*?) in ([\d.]+)s\s*=*$/.exec(line);
  return closing ? `Schemathesis: ${closing[1]} (${closing[2]} s)` : line;
}

/**
 * Appends the run's counts (an operation is a test, as in Schemathesis' JUnit report; the API's own log of
 * failed requests one more) to TEST_COUNTS_FILE, which `make test` adds up into its closing line.
 */
async function reportCounts(reportDir: string, serverErrors: number): Promise<void> {
  const file = process.env.TEST_COUNTS_FILE;
  if (!file) return;
  const report = (await readdir(reportDir)).find((name) => /^junit.*\.xml$/.test(name));
  const xml = report ? await readFile(path.join(reportDir, report), 'utf8') : '';
  const suite = /<testsuite\b[^>]*>/.exec(xml)?.[0] ?? '';
  const count = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(suite)?.[1] ?? 0);
  const failed = count('failures') + count('errors') + (serverErrors > 0 ? 1 : 0);
  const skipped = count('skipped');
  const passed = count('tests') - count('failures') - count('errors') - skipped + (serverErrors > 0 ? 0 : 1);
  await appendFile(file, `${JSON.stringify({ suite: 'api-fuzz', passed, failed, skipped })}\n`);
}

main(process.argv[2]).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${String((err as Error).stack ?? err)}\n`);
    process.exit(1);
  },
);
