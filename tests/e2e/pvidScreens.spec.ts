/**
 * Screens of the generic test page around the pair test: not-found, eligibility failure, unknown category,
 * the lab platform's routing, and a pixel probe proving the stimulus is really drawn on the canvas.
 */
import { resolve } from 'node:path';
import sharp from 'sharp';
import { layoutSideBySide } from '../../src/web/stage/layouts.js';
import { E2E_JOBS, expect, test } from './fixtures';
import { startTest, vote } from './participantSteps';

test('an unknown path shows the 404 page', async ({ page }) => {
  for (const path of ['/pvid', '/some/deep/unknown/path', '/pvid/e2e-pvid/extra']) {
    await page.goto(path);
    await expect(page.getByText("The page you requested doesn't exist")).toBeVisible();
    await expect(page.getByText('Error 404')).toBeVisible();
  }
});

test('a screen below the job minimum shows its message, then the eligibility-failed screen, and opens no session', async ({ page, participant }) => {
  await page.goto(participant.linkTo('web-pvid-bigscreen'));
  const message = 'Please use a larger screen than the current one at 720x1280. Targeted minimum size is 2160x3840.';
  await expect(page.getByText(message)).toBeVisible();
  await expect(page.locator('#check-browser')).toContainText('pass');
  await expect(page.getByRole('button', { name: 'Continue' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Exit the test' }).click();
  await expect(page.getByText('Sorry, you cannot take part in this test.')).toBeVisible();
  await expect(page.getByText(message)).toBeVisible();
  expect(await participant.session('web-pvid-bigscreen')).toBeUndefined();
});

test('a job whose categoryTest is not 1-4 shows "Error of category"', async ({ page, participant }) => {
  await startTest(page, participant.linkTo('web-pvid-nocategory'));
  await expect(page.getByText('Error of category', { exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('#vote-modal')).toHaveCount(0);
});

test('the lab platform is French; with an email the welcome leads to the consent form, without it to the instructions', async ({ page, participant }) => {
  await page.goto(participant.linkTo(E2E_JOBS.pair_comparison, { platform: 'nantes', email: 'someone@example.org' }));
  await page.getByRole('button', { name: 'Continuer' }).click();
  await expect(page.getByRole('checkbox')).toHaveCount(0); // no privacy box on the lab platform
  await page.getByRole('button', { name: 'Suivant' }).click();
  await expect(page.locator('.consent-form')).toBeVisible();
  await expect(page.locator('.consent-form input[type="email"], .consent-form input[readonly]').first()).toHaveValue('someone@example.org');

  await page.goto(participant.linkTo(E2E_JOBS.pair_comparison, { platform: 'nantes', PROLIFIC_PID: `${participant.pid}b` }));
  await page.getByRole('button', { name: 'Continuer' }).click();
  await page.getByRole('button', { name: 'Suivant' }).click();
  await expect(page.getByRole('button', { name: 'Aller au test' })).toBeVisible();
});

test('a non-lab welcome refuses Next until the privacy box is checked', async ({ page, participant }) => {
  await page.goto(participant.linkTo(E2E_JOBS.pair_comparison));
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Next' }).click();
  const warning = page.getByText('Please check the above consent about Privacy Policy.');
  await expect(warning).toBeVisible();
  await expect(warning).toHaveCSS('color', 'rgb(198, 40, 40)');
  await expect(page.getByRole('button', { name: 'Go to the test' })).toHaveCount(0);
  await page.getByLabel('I have read and I accept the').check();
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByRole('button', { name: 'Go to the test' })).toBeVisible();
});

/** Centre pixel of a media file as decoded by sharp (the reference the canvas must match). */
async function centrePixel(file: string): Promise<number[]> {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const offset = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * 3;
  return [data[offset]!, data[offset + 1]!, data[offset + 2]!];
}

test('a pixel probe of the canvas finds both stimuli drawn where the layout puts them; the end screen links to Prolific', async ({ page, participant }) => {
  const playlist = await startTest(page, participant.linkTo('web-pvid-probe'));
  await expect(page.locator('#trial')).toHaveAttribute('data-status', 'playing', { timeout: 60_000 });
  const stimulus = playlist.stimulis[0]!;
  const size = await page.evaluate(() => window.__glimpseStage!.size());
  const [a, b] = layoutSideBySide(size, [
    { media: stimulus.sourceA!, size: { width: 320, height: 180 } },
    { media: stimulus.sourceB!, size: { width: 320, height: 180 } },
  ]);
  const centre = (r: { x: number; y: number; width: number; height: number }) => [r.x + Math.floor(r.width / 2), r.y + Math.floor(r.height / 2)];
  const probe = (x: number, y: number) => page.evaluate(([px, py]) => window.__glimpseStage!.probe(px!, py!), [x, y]);
  const background = [128, 128, 128];
  // The step's first frame may come a frame after 'playing'; the display lasts 4 s.
  await expect.poll(async () => (await probe(centre(a!.rect)[0]!, centre(a!.rect)[1]!)).slice(0, 3), { timeout: 3000 }).not.toEqual(background);

  const media = resolve('tests/e2e/studies/media');
  const expectedA = await centrePixel(`${media}/${stimulus.sourceA!.split('/').slice(1).join('/')}`);
  const expectedB = await centrePixel(`${media}/${stimulus.sourceB!.split('/').slice(1).join('/')}`);
  const gotA = await probe(centre(a!.rect)[0]!, centre(a!.rect)[1]!);
  const gotB = await probe(centre(b!.rect)[0]!, centre(b!.rect)[1]!);
  const gotBackground = await probe(4, 4);
  for (const [got, expected] of [
    [gotA, expectedA],
    [gotB, expectedB],
    [gotBackground, background],
  ] as const) {
    for (let ch = 0; ch < 3; ch++) expect(Math.abs(got[ch]! - expected[ch]!)).toBeLessThanOrEqual(8);
  }
  expect(expectedA).not.toEqual(expectedB);

  // This job configures a Prolific completion link: the end screen offers it with the code.
  await vote(page, 0, 1, { replays: 0, choice: 'first' }, { first: 'First Image', last: 'Last Image', replay: 'Replay Images' });
  await expect(page.locator('#verification-code')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('link', { name: 'Click here to complete your submission on Prolific' })).toHaveAttribute(
    'href',
    'https://app.prolific.com/submissions/complete?cc=E2ETEST',
  );
});

test('a newer version in /meta.json clears the caches and reloads the page once', async ({ page, participant }) => {
  await page.route('**/meta.json', (route) => route.fulfill({ json: { version: '9.9.9' } }));
  // A stale cache from the previous version (created before the app runs, not again after the reload).
  await page.addInitScript(() => {
    if (!sessionStorage.getItem('glimpse-reloaded-for-version')) void caches.open('glimpse-stale-v1');
  });
  let loads = 0;
  page.on('load', () => (loads += 1));
  await page.goto(participant.linkTo(E2E_JOBS.pair_comparison));
  await expect.poll(() => loads, { timeout: 15_000 }).toBe(2);
  await expect(page.getByRole('button', { name: 'Continue' })).toBeVisible();
  expect(await page.evaluate(() => caches.keys())).toEqual([]);
  await page.waitForTimeout(1000);
  expect(loads).toBe(2);
});

test('a failed version check is only logged', async ({ page, participant }) => {
  await page.route('**/meta.json', (route) => route.abort('connectionrefused'));
  const logged = page.waitForEvent('console', (m) => m.text().startsWith('version check failed'));
  await page.goto(participant.linkTo(E2E_JOBS.pair_comparison));
  await logged;
  await expect(page.getByRole('button', { name: 'Continue' })).toBeVisible();
});

test('a screen whose code cannot be downloaded shows the server-connection error, not a blank page', async ({ page, participant }) => {
  await page.route(/\/assets\/Welcome-[^/]+\.js$/, (route) => route.abort('connectionreset'));
  await page.goto(participant.linkTo(E2E_JOBS.pair_comparison));
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByText('An error occured while connecting to the server...', { exact: false })).toBeVisible();
});
