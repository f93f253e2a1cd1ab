import { defineConfig } from '@playwright/test';

/**
 * End-to-end journeys against the real server (tests/e2e/fixtures.ts starts it in-process) and Debian Chromium.
 * `npm run test:e2e` builds the web app first (vite build -> dist/web), which the server serves.
 * WebGL2 runs on SwiftShader (software): never pass --disable-gpu, it turns page compositing software-only too.
 */
export default defineConfig({
  testDir: 'tests/e2e',
  // One worker: the machine is small and SwiftShader rendering is CPU-bound; journeys are timed by the app.
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  reporter: 'list',
  outputDir: 'test-results',
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 720 },
    actionTimeout: 15_000,
    navigationTimeout: 30_000,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox'],
    },
  },
});
