import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What the e2e run fails on: what keeps a person from using the page, not advice. */
const BLOCKING = ['serious', 'critical'];

/**
 * Runs axe-core (all its rules: WCAG 2.x A and AA, and best practices) on the page as it is now, and returns
 * each serious or critical violation as '<rule>: <help> (<nodes>)'. axe is put into the page through the
 * DevTools protocol, which the page's Content-Security-Policy does not govern.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  return page.evaluate(`
    axe
      .run(document, { resultTypes: ['violations'] })
      .then((result) =>
        result.violations
          .filter((v) => ${JSON.stringify(BLOCKING)}.includes(v.impact))
          .map((v) => v.id + ': ' + v.help + ' (' + v.nodes.map((n) => n.target.join(' ')).slice(0, 5).join(', ') + ')'),
      )
  `);
}
