/**
 * The visual screening tests (SPEC §2 /monoyer and /visual_test, §4 "Landing leads to eligibility (visual tests)",
 * §5 acuity and colour vision) in Chromium against the real server: the exact failure and success texts, the
 * tests inside a job's flow (job field visualTests), the acuity developer bypass, and the two static documents.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from '@playwright/test';
import { startServer } from '../../src/server/start.js';
import { expect, test } from './fixtures';
import { eventually, sessionLogsOf } from './participantSteps';

const JOB = 'screening-visual';
const ACUITY_ANSWER = 'RCYHOFMESPA';
const PLATES = ['8', '15', '45', '26'];
const ACUITY_FAILED = ["Sorry you didn't passed the accuity test.", 'You cannot process further.', 'Thank you for your interest and sorry for the inconvenience.'];
const COLOR_FAILED = "Sorry you didn't passed the color vision test.";
const SUCCEEDED = 'You succeed the visual test';

async function answerAcuity(page: Page, letters: string): Promise<void> {
  await expect(page.getByRole('heading', { name: 'Visual acuity test' })).toBeVisible();
  await expect(page.getByRole('img', { name: 'Chart of letters of decreasing size' })).toBeVisible();
  await page.getByLabel('Letters you read').fill(letters);
  await page.getByRole('button', { name: 'Submit' }).click();
}

/** Reads the four plates in order, typing `answers`; each plate must be shown (and its image loaded) first. */
async function answerPlates(page: Page, answers: string[]): Promise<void> {
  for (const [i, answer] of answers.entries()) {
    await expect(page.getByText(`Plate ${i + 1} of 4`, { exact: true })).toBeVisible();
    const plate = page.getByRole('img', { name: `Circle of coloured dots, plate ${i + 1} of 4` });
    await expect(plate).toBeVisible();
    await expect.poll(() => plate.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await page.getByLabel('Number you see').fill(answer);
    await page.getByRole('button', { name: 'Next' }).click();
  }
}

async function expectAcuityFailure(page: Page): Promise<void> {
  const outcome = page.getByRole('alert');
  await expect(outcome.locator('p')).toHaveText(ACUITY_FAILED);
  await expect(outcome.getByRole('button', { name: 'Exit the test' })).toBeVisible();
  await expect(page.getByText(SUCCEEDED)).toHaveCount(0);
}

test.describe('/monoyer (acuity)', () => {
  test('a wrong reading shows the three failure lines, in order, and never the success', async ({ page }) => {
    await page.goto('/monoyer');
    await expect.poll(() => page.getByRole('img', { name: 'Chart of letters of decreasing size' }).evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    await answerAcuity(page, 'RCYHOFMESPB');
    await expectAcuityFailure(page);
    await page.getByRole('button', { name: 'Exit the test' }).click();
    await expect(page.getByText('You can now close this page.')).toBeVisible();
  });

  test('the right letters in any case and with spaces between them pass: letters are what the test measures', async ({ page }) => {
    await page.goto('/monoyer');
    await answerAcuity(page, 'r CY hof MESPa');
    await expect(page.getByText(SUCCEEDED, { exact: true })).toBeVisible();
    await expect(page.getByText(ACUITY_FAILED[0]!)).toHaveCount(0);
  });

  test('RCYHOFMESPA passes', async ({ page }) => {
    await page.goto('/monoyer');
    await answerAcuity(page, ACUITY_ANSWER);
    await expect(page.getByText(SUCCEEDED, { exact: true })).toBeVisible();
    await expect(page.getByText(ACUITY_FAILED[0]!)).toHaveCount(0);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByText('You can now close this page.')).toBeVisible();
  });

  test('the developer bypass is refused when the server has none', async ({ page }) => {
    await page.goto('/monoyer');
    await expect(page.locator('meta[name="glimpse-acuity-bypass-sha256"]')).toHaveCount(0);
    await answerAcuity(page, `dev-${randomUUID()}`);
    await expectAcuityFailure(page);
  });
});

test('with ACUITY_BYPASS set on the server, typing the bypass passes the acuity test', async ({ browser }) => {
  const bypass = `dev-${randomUUID()}`;
  const dir = mkdtempSync(join(tmpdir(), 'glimpse-e2e-bypass-'));
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    databaseUrl: join(dir, 'bypass.db'),
    mediaDir: join(dir, 'media'),
    mediaBaseUrl: '',
    webDir: resolve('dist/web'),
    studies: [],
    acuityBypass: bypass,
  });
  const context = await browser.newContext({ baseURL: server.url });
  try {
    const page = await context.newPage();
    await page.goto('/monoyer');
    // Only a hash reaches the page.
    expect(await page.content()).not.toContain(bypass);
    await answerAcuity(page, bypass);
    await expect(page.getByText(SUCCEEDED, { exact: true })).toBeVisible();

    // Any other value still fails there.
    await page.goto('/monoyer');
    await answerAcuity(page, `${bypass}x`);
    await expectAcuityFailure(page);
  } finally {
    await context.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.describe('/visual_test (colour vision)', () => {
  test('one misread plate shows the colour failure and Exit the test, after all four plates', async ({ page }) => {
    await page.goto('/visual_test');
    await answerPlates(page, ['8', '15', '46', '26']);
    await expect(page.getByText(COLOR_FAILED, { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Exit the test' })).toBeVisible();
    await expect(page.getByText(SUCCEEDED)).toHaveCount(0);
    // The acuity chart belongs to /monoyer, not here.
    await expect(page.getByRole('heading', { name: 'Visual acuity test' })).toHaveCount(0);
  });

  test('8, 15, 45, 26 pass', async ({ page }) => {
    await page.goto('/visual_test');
    await expect(page.getByRole('heading', { name: 'Colour vision test' })).toBeVisible();
    await answerPlates(page, PLATES);
    await expect(page.getByText(SUCCEEDED, { exact: true })).toBeVisible();
    await expect(page.getByText(COLOR_FAILED)).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Continue' })).toBeVisible();
  });
});

test.describe('visual tests inside a job (visualTests: acuity, color)', () => {
  test('after the eligibility checks, both tests passed lead to the welcome screen and on to the test', async ({ page, participant }) => {
    await page.goto(participant.linkTo(JOB));
    await page.getByRole('button', { name: 'Continue' }).click();
    await answerAcuity(page, ACUITY_ANSWER);
    // Acuity first, as the job orders them.
    await answerPlates(page, PLATES);
    await expect(page.getByText(SUCCEEDED, { exact: true })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Welcome (screening-visual)' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Continue' }).click();

    await expect(page.getByRole('heading', { name: 'Welcome (screening-visual)' })).toBeVisible();
    await page.getByLabel('I have read and I accept the').check();
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByRole('heading', { name: 'Instructions (screening-visual)' })).toBeVisible();
    await page.getByRole('button', { name: 'Go to the test' }).click();
    await expect(page.locator('#trial')).toBeAttached({ timeout: 30_000 });
  });

  test('a failed acuity test ends the journey on the eligibility-failed screen, logged as such', async ({ page, participant, glimpse }) => {
    await page.goto(participant.linkTo(JOB));
    await page.getByRole('button', { name: 'Continue' }).click();
    await answerAcuity(page, 'RCYH0FMESPA');
    await expectAcuityFailure(page);
    // The colour plates are not offered once acuity failed: both must pass.
    await expect(page.getByText('Plate 1 of 4')).toHaveCount(0);
    await page.getByRole('button', { name: 'Exit the test' }).click();
    await expect(page.getByRole('heading', { name: 'Sorry, you cannot take part in this test.' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Welcome (screening-visual)' })).toHaveCount(0);

    const session = (await participant.session(JOB))!;
    const logs = await eventually(() => sessionLogsOf(glimpse, session.id), (rows) => rows.length > 0);
    expect(logs).toHaveLength(1);
    const states = (JSON.parse(logs[0]!.body) as { logStates: Array<{ state: string; status: string }> }).logStates;
    expect(states.map((s) => `${s.state}:${s.status}`)).toEqual(['Landing:ok', 'Eligibility:checks', 'Eligibility:visual', 'FailEligibility:ok']);
  });

  test('a misread plate after a good acuity reading also fails', async ({ page, participant }) => {
    await page.goto(participant.linkTo(JOB));
    await page.getByRole('button', { name: 'Continue' }).click();
    await answerAcuity(page, ACUITY_ANSWER);
    await answerPlates(page, ['8', '15', '45', '62']);
    await expect(page.getByText(COLOR_FAILED, { exact: true })).toBeVisible();
    await page.getByRole('button', { name: 'Exit the test' }).click();
    await expect(page.getByRole('heading', { name: 'Sorry, you cannot take part in this test.' })).toBeVisible();
  });
});

test.describe('/rgpd_file and /ficheInfo', () => {
  const DOCUMENTS = [
    { path: '/rgpd_file', en: 'Privacy policy', fr: 'Politique de confidentialité' },
    { path: '/ficheInfo', en: 'Information sheet', fr: "Fiche d'information" },
  ];
  for (const doc of DOCUMENTS) {
    test(`${doc.path} in English by default, in French on nantes or ?lang=fr`, async ({ page }) => {
      for (const [query, title, lang] of [
        ['', doc.en, 'en'],
        ['?platform=prolific', doc.en, 'en'],
        ['?platform=nantes', doc.fr, 'fr'],
        ['?lang=fr', doc.fr, 'fr'],
        ['?platform=nantes&lang=en', doc.en, 'en'],
      ] as const) {
        await page.goto(`${doc.path}${query}`);
        await expect(page.getByRole('heading', { level: 1 }), query).toHaveText(title);
        await expect(page.locator('article')).toHaveAttribute('lang', lang);
        await expect(page.locator('article h2').first()).toBeVisible();
      }
    });
  }
});
