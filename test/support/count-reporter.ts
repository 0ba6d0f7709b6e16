/**
 * Mocha's spec reporter that also appends the run's counts, one JSON line, to the file named by
 * TEST_COUNTS_FILE (when set). `make test` adds up every runner's line into its closing
 * 'N passed, N failed' line (hack/test-summary.ts), which CI reads.
 *
 *   mocha --reporter test/support/count-reporter.ts ...
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import Mocha from 'mocha';

export default class CountReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const file = process.env.TEST_COUNTS_FILE;
      if (!file) return;
      const { passes, failures, pending } = this.stats;
      const suite = process.env.TEST_SUITE ?? path.basename(process.cwd());
      appendFileSync(
        file,
        `${JSON.stringify({ suite, passed: passes, failed: failures, skipped: pending })}\n`,
      );
    });
  }
}
