import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

/** Where `make dev` runs the API (watch mode); the dev server proxies to it. */
const apiTarget = process.env.API_URL ?? 'http://127.0.0.1:3000';

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
  },
});
