/**
 * The lab link `npm start` prints (src/server/start.ts `startupLines`), opened as printed on a server that imports
 * the lab demo study (studies/demo-lab-pvid.json) as `npm start` does: it carries an e-mail, so the lab's whole flow
 * shows (SPEC §4: only a lab link with email= leads to the consent form), in French, the study's own texts included.
 */
import { fr } from '../../src/web/i18n/fr.js';
import { EXAMPLE_LAB_EMAIL, LAB_DEMO_JOB, startupLines } from '../../src/server/start.js';
import { DEMO_STUDIES, DEMO_STUDIES_DIR, expect, runGlimpseServer, test as e2eTest, type GlimpseServer } from './fixtures';

const test = e2eTest.extend<object, { glimpse: GlimpseServer }>({
  glimpse: [
    async ({}, use) => {
      const files = DEMO_STUDIES.filter((s) => s.id === LAB_DEMO_JOB).map((s) => s.file);
      expect(files).toHaveLength(1);
      await runGlimpseServer(DEMO_STUDIES_DIR, files, use);
    },
    { scope: 'worker', timeout: 180_000 },
  ],
});

test('the printed lab link carries an e-mail and opens the French lab flow: eligibility, the French welcome, the consent form with that e-mail', async ({ page, glimpse }) => {
  const lines = await startupLines(glimpse.server, null);
  const heading = lines.indexOf("Lab participant (French wording and consent form; each participant's own e-mail goes in email=):");
  expect(heading).toBeGreaterThan(0);
  const link = lines[heading + 1]!.trim();
  expect(link).toBe(`${glimpse.url}/pvid/${LAB_DEMO_JOB}?platform=nantes&email=${EXAMPLE_LAB_EMAIL}`);
  expect(EXAMPLE_LAB_EMAIL).toBe('participant@lab.example');

  await page.goto(link);
  await expect(page.getByRole('heading', { name: fr.eligibilityTitle })).toBeVisible();
  await page.getByRole('button', { name: fr.eligibilityContinue }).click();
  // The study's own texts are French too (they were the English demo's).
  await expect(page.getByRole('heading', { name: "Bienvenue dans l'étude sur la qualité des images" })).toBeVisible();
  await expect(page.getByText("L'étude dure environ 4 minutes.")).toBeVisible();
  await expect(page.locator('#privacy-consent')).toHaveCount(0);
  await page.getByRole('button', { name: fr.next }).click();
  await expect(page.getByRole('heading', { name: 'Formulaire de consentement' })).toBeVisible();
  const email = page.getByLabel('Adresse e-mail');
  await expect(email).toHaveValue('participant@lab.example');
  await expect(email).not.toBeEditable();
  // An unsigned form does not go on (SPEC §5).
  await page.getByRole('button', { name: 'Valider' }).click();
  await expect(page.getByText("Vérifiez que vous avez bien complété tous les champs et accepté l'ensemble des conditions.")).toBeVisible();
});
