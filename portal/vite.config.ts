import { appendFileSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { compression, defineAlgorithm } from 'vite-plugin-compression2';
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

/**
 * Source maps are built (for stack traces and for reading what each chunk holds) but never served: Vite
 * writes them without a `sourceMappingURL` comment (`sourcemap: 'hidden'`) and this moves them out of
 * `dist/` into `dist-maps/`, which nothing serves.
 */
function sourceMapsOutOfDist(): Plugin {
  let outDir = '';
  let mapsDir = '';
  return {
    name: 'exploit-grid:source-maps-out-of-dist',
    // The client's build only: the prerendering build (--ssr) must not empty the client's maps.
    apply: (_config, env) => env.command === 'build' && !env.isSsrBuild,
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
      mapsDir = path.resolve(config.root, 'dist-maps');
    },
    buildStart() {
      rmSync(mapsDir, { recursive: true, force: true });
    },
    closeBundle() {
      for (const file of readdirSync(outDir, { recursive: true, encoding: 'utf8' })) {
        if (!file.endsWith('.map')) continue;
        mkdirSync(path.dirname(path.join(mapsDir, file)), { recursive: true });
        renameSync(path.join(outDir, file), path.join(mapsDir, file));
      }
    },
  };
}

export default defineConfig(({ isSsrBuild }) => ({
  plugins: [
    react(),
    // Every text asset also as .br (quality 11) and .gz (level 9) beside it: the API serves the variant the
    // browser accepts without compressing anything per request (api/src/portal/static.ts).
    compression({ algorithms: [defineAlgorithm('brotliCompress'), defineAlgorithm('gzip')] }),
    sourceMapsOutOfDist(),
  ],
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
  // The prerendering build (src/prerender.tsx) bundles every dependency: it runs once, in Node, at build time.
  // Only that build: the tests load the dependencies as they are.
  ssr: isSsrBuild ? { noExternal: true } : undefined,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: 'hidden',
    // The globe's chunk (three.js, react-globe.gl, the country outlines: about 2 MB, 580 kB gzipped) loads only on
    // /attack, after the page shows; every other chunk stays far below this.
    chunkSizeWarningLimit: 2100,
    // Brotli at quality 11 takes most of the build (the globe's chunk alone seconds): expected, not worth a warning.
    rolldownOptions: {
      checks: { bundlerTimings: false },
      output: {
        // What every page runs (React, the router, emotion and MUI's styling core) in one chunk: left to the
        // automatic split, it came in a dozen small chunks whose count and compression shifted with every new
        // lazy page, each compressed apart (and a request each).
        codeSplitting: {
          groups: [
            {
              name: 'framework',
              test: /node_modules[\\/](react|react-dom|scheduler|react-router|@emotion[\\/][^\\/]+|@mui[\\/](system|styled-engine|private-theming)|clsx|prop-types|react-is|stylis|hoist-non-react-statics)[\\/]/,
            },
          ],
        },
      },
    },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test-setup.ts'],
    restoreMocks: true,
    reporters: ['default', countReporter],
  },
}));
