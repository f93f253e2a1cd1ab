import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// The web app builds to dist/web; the Fastify server serves it (index.html for every non-API route).
export default defineConfig({
  plugins: [react()],
  publicDir: 'public',
  build: {
    outDir: 'dist/web',
    emptyOutDir: true,
    sourcemap: true,
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
  },
});
