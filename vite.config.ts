import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { precompress } from './scripts/vite-precompress.js';

// One source for the app version (SPEC §7 compares it with /meta.json's): package.json, injected into the bundle.
const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

// The web app builds to dist/web; the Fastify server serves it (index.html for every non-API route).
export default defineConfig({
  // Brotli and gzip copies of the built files, served as they are (src/server/plugins/web-app.ts).
  plugins: [react(), precompress()],
  define: { __APP_VERSION__: JSON.stringify(version) },
  publicDir: 'public',
  build: {
    outDir: 'dist/web',
    emptyOutDir: true,
    // No source maps in production unless asked for (GLIMPSE_SOURCEMAPS=1): they publish the source.
    sourcemap: process.env.GLIMPSE_SOURCEMAPS === '1',
    chunkSizeWarningLimit: 2000,
  },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:8080',
      '/resmedias': 'http://127.0.0.1:8080',
      '/meta.json': 'http://127.0.0.1:8080',
    },
  },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'tests/unit/**/*.test.ts', 'tests/server/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20000,
    hookTimeout: 60000,
    fileParallelism: false,
    // A failing display check keeps its last captures and record (test-results/virtual-display/).
    setupFiles: ['testkit/vitest-setup.ts'],
  },
});
