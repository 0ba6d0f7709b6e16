import { pino } from 'pino';
import type { Logger } from '../logger.ts';

const KEPT_LINES = 200;
const recent: string[] = [];
let inTest = false;

/**
 * The tests' logger. Warnings and errors logged during a test are kept in memory and printed only
 * when it fails (setup.ts), so a flaky failure comes with the platform's own account of it; those
 * logged in a before or after hook (starting or closing a platform) are printed at once, since a
 * hook that fails has no test to report them with. TEST_LOG_LEVEL=debug (or any level) also prints
 * everything as it happens.
 */
export const testLogger: Logger = pino(
  { level: process.env.TEST_LOG_LEVEL ?? 'warn' },
  {
    write(line: string) {
      if (process.env.TEST_LOG_LEVEL) process.stdout.write(line);
      else if (!inTest) process.stderr.write(line);
      recent.push(line);
      if (recent.length > KEPT_LINES) recent.shift();
    },
  },
);

/** Marks the start of a test: what is logged from now on is kept for it. */
export function testStarted(): void {
  inTest = true;
  recent.length = 0;
}

/** Marks the end of a test and answers what was logged during it. */
export function testEnded(): string[] {
  inTest = false;
  return recent.splice(0, recent.length);
}
