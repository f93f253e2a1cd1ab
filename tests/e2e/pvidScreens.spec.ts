/**
 * Screens of the generic test page around the pair test: not-found, eligibility failure, unknown category,
 * the lab platform's routing, and a pixel probe proving the stimulus is really drawn on the canvas.
 */
import { layoutSideBySide } from '../../src/web/stage/layouts.js';
import { E2E_JOBS, expect, test } from './fixtures';
import { startTest, vote } from './participantSteps';
import { expectDrawn, stageSize } from './protocols-steps';

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
  // The pair comparison's instruction image, loaded.
  const image = page.locator('img.instruction-image');
  await expect(image).toHaveAttribute('src', '/instructions/pair.svg');
  await expect.poll(() => image.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(640);
});

test('a pixel probe of the canvas finds both stimuli drawn where the layout puts them; the end screen links to Prolific', async ({ page, participant }) => {
  const playlist = await startTest(page, participant.linkTo('web-pvid-probe'));
  await expect(page.locator('#trial')).toHaveAttribute('data-status', 'playing', { timeout: 60_000 });
  const stimulus = playlist.stimulis[0]!;
  const items = layoutSideBySide(await stageSize(page), [
    { media: stimulus.sourceA!, size: { width: 320, height: 180 } },
    { media: stimulus.sourceB!, size: { width: 320, height: 180 } },
  ]);
  // Each media's centre pixel at the centre of its place, the background in a corner (the display lasts 4 s).
  await expectDrawn(page, items, [[4, 4]]);

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
