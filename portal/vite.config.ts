import { appendFileSync } from 'node:fs';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import type { Reporter } from 'vitest/node';

/** Where `make dev` runs the API (watch mode); the dev server proxies to it. */
const apiTarget = process.env.API_URL ?? 'http://127.0.0.1:3000';

/**
 * Appends the run's counts, one JSON line, to TEST_COUNTS_FILE: `make test` adds up every runner's line
 * into its closing 'N passed, N failed' line (hack/test-summary.ts).
 */
const countReporter: Reporter = {
  onTestRunEnd(testModules, unhandledErrors) {
    const file = process.env.TEST_COUNTS_FILE;
    if (!file) return;
    const counts = { suite: 'portal', passed: 0, failed: unhandledErrors.length, skipped: 0 };
    for (const testModule of testModules)
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    appendFileSync(file, `${JSON.stringify(counts)}\n`);
  },
};

export default defineConfig({
  plugins: [react()],
  server: {
    port: 5173,
    strictPort: true,
    proxy: {
      '/api': { target: apiTarget, changeOrigin: false },
      '/socket.io': { target: apiTarget, ws: true },
      '/healthz': apiTarget,
      '/readyz': apiTarget,
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // The globe's chunk (three.js, react-globe.gl, the country outlines: about 2 MB, 580 kB gzipped) loads only on
    // /attack, after the page shows; every other chunk stays far below this.
    chunkSizeWarningLimit: 2100,
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test-setup.ts'],
    restoreMocks: true,
    reporters: ['default', countReporter],
  },
});
