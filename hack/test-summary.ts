/**
 * The closing line of `make test`: adds up the counts every runner appended to the file given (one JSON line
 * per run: suite, passed, failed, skipped) and prints them per suite, then 'tests: N passed, N failed' alone
 * on the last line. Exits 1 when a test failed or no runner reported (a run that tested nothing is no pass).
 *
 *   node hack/test-summary.ts <counts file>
 */
import { readFileSync } from 'node:fs';

interface Counts {
  suite: string;
  passed: number;
  failed: number;
  skipped: number;
}

function main(file: string | undefined): number {
  if (!file) throw new Error('usage: node hack/test-summary.ts <counts file>');
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
  console.log(`tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  return runs.length > 0 && total.failed === 0 ? 0 : 1;
}

process.exit(main(process.argv[2]));
