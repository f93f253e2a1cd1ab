/**
 * `npx tsx scripts/console-screenshots.ts [outDir]`: the console's screens in Chromium at the researchers' common
 * sizes (1366×768 and 1280×720), for a look by eye: the studies list, a study's page, its participants and its
 * downloads, on a scratch database with a few participants. Writes PNGs to outDir (default .tmp/console-shots).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from '@playwright/test';
import { startServer } from '../src/server/start.js';
import { addUser, PASSWORD } from '../testkit/console.js';

const SIZES = [
  { width: 1366, height: 768 },
  { width: 1280, height: 720 },
];

async function main(): Promise<void> {
  const out = resolve(process.argv[2] ?? '.tmp/console-shots');
  await mkdir(out, { recursive: true });
  const dir = await mkdtemp(join(tmpdir(), 'glimpse-shots-'));
  const server = await startServer({
    port: 0,
    databaseUrl: join(dir, 'shots.sqlite'),
    mediaDir: join(dir, 'media'),
    studies: ['tests/server/fixtures/pair-study.json', 'tests/e2e/studies/e2e-acr.json', 'tests/e2e/studies/adaptive-pvid.json'],
  });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox'] });
  try {
    await addUser(server.storage, 'lead@lab.example');
    // A few participants in progress, so the tables have rows.
    for (const pid of ['5f1a2b3c4d5e6f7a8b9c0d1e', 'WorkerA1B2C3', 'P-third']) {
      await fetch(`${server.url}/api/getrandomtasks/fixture-pair?platform=prolific&PROLIFIC_PID=${pid}`);
      // An adaptive design's participants each get a playlist of their own (one row on the study's page).
      await fetch(`${server.url}/api/getrandomtasks/adaptive-pvid?platform=prolific&PROLIFIC_PID=${pid}`);
    }
    for (const size of SIZES) {
      const context = await browser.newContext({ viewport: size });
      const page = await context.newPage();
      await page.goto(`${server.url}/console`);
      await page.getByLabel('E-mail address').fill('lead@lab.example');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Studies' }).waitFor();
      const shot = (name: string) => page.screenshot({ path: join(out, `${name}-${size.width}x${size.height}.png`), fullPage: true });
      await shot('studies');
      await page.goto(`${server.url}/console/jobs/fixture-pair`);
      await page.locator('#stat-started').waitFor();
      await page.locator('#study-settings summary').click();
      await page.getByRole('button', { name: 'Make preview links' }).click();
      await page.locator('#preview-links').waitFor();
      await shot('study');
      await page.getByRole('link', { name: 'Participants' }).click();
      await page.locator('#participants-table').waitFor();
      await shot('participants');
      await page.getByRole('link', { name: 'Downloads' }).click();
      await page.getByRole('button', { name: 'Judge every session again' }).click();
      await page.locator('#rescreen-result').waitFor();
      await shot('downloads');
      await page.goto(`${server.url}/console/jobs/adaptive-pvid`);
      await page.locator('#stat-started').waitFor();
      await shot('study-adaptive');
      // The same page in French (the console's language switch).
      await page.getByRole('button', { name: 'Français' }).click();
      await page.locator('#stat-started').waitFor();
      await shot('study-adaptive-fr');
      await page.getByRole('button', { name: 'English' }).click();
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`screenshots in ${out}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
