/**
 * A test that needs root (network namespaces, nftables, boxes): skipped with a loud reason on a
 * host that is not root, and failed instead where the run requires everything (REQUIRE_BOX_RUNTIME=1,
 * as CI sets it): a green run must not hide what it did not test.
 */
export function needsRoot(ctx: Mocha.Context, what: string): void {
  if (process.getuid?.() === 0) return;
  const reason = `${what} needs root`;
  if (process.env.REQUIRE_BOX_RUNTIME === '1') throw new Error(`${reason} (REQUIRE_BOX_RUNTIME=1)`);
  console.warn(`\n  SKIPPED: ${reason}\n`);
  ctx.skip();
}
