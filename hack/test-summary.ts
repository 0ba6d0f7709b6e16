/**
 * The closing lines of `make test`: adds up the counts every runner appended to the file given (one JSON line
 * per run: suite, passed, failed, skipped) and prints them per suite, then the totals, last in mocha's own
 * closing form ('N passing (25m)', 'N pending', 'N failing'), which CI reads.
 *
 * Exits 1 when a test failed, when the runs' make failed (a suite that could not start reports no count),
 * or when no runner reported (a run that tested nothing is no pass).
 *
 *   node hack/test-summary.ts <counts file> <seconds the run took> <exit status of the runs>
 */
import { readFileSync } from 'node:fs';

interface Counts {
  suite: string;
  passed: number;
  failed: number;
  skipped: number;
}

/** A duration as mocha prints one: 150ms, 9s, 25m. */
export function mochaDuration(seconds: number): string {
  if (seconds < 1) return `${Math.round(seconds * 1000)}ms`;
  if (seconds < 60) return `${Math.round(seconds)}s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m`;
  return `${Math.round(seconds / 3600)}h`;
}

function main(file: string | undefined, seconds: string | undefined, status: string | undefined): number {
  if (!file) throw new Error('usage: node hack/test-summary.ts <counts file> [seconds] [exit status]');
  const runs = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Counts);
  const total = { passed: 0, failed: 0, skipped: 0 };
  console.log('');
  for (const run of runs) {
    console.log(
      `  ${run.suite.padEnd(16)} ${run.passed} passed, ${run.failed} failed, ${run.skipped} skipped`,
    );
    total.passed += run.passed;
    total.failed += run.failed;
    total.skipped += run.skipped;
  }
  const runsFailed = Number(status ?? 0) !== 0;
  // A suite that could not start (a build or lint error) counts one failure, so that the totals say so.
  if (runsFailed && total.failed === 0) total.failed = 1;
  if (runs.length === 0) console.log('  no runner reported a count: nothing was tested');
  else if (runsFailed) console.log(`  a suite stopped before it reported (make exited ${status})`);
  console.log(`tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  console.log('');
  console.log(`  ${total.passed} passing (${mochaDuration(Number(seconds ?? 0))})`);
  if (total.skipped > 0) console.log(`  ${total.skipped} pending`);
  if (total.failed > 0) console.log(`  ${total.failed} failing`);
  console.log('');
  return runs.length > 0 && total.failed === 0 ? 0 : 1;
}

process.exit(main(process.argv[2], process.argv[3], process.argv[4]));
