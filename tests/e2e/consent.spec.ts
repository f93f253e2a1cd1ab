/**
 * The French consent form of the lab platform (SPEC §2 screen 7, §4 "Welcome on the lab platform", §5, §7
 * POST /api/consent/) against the real server, database and Chromium: what the participant sees, what is stored,
 * the PDF copy they get, and that the flow goes on to the instructions even when the post fails.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { fr } from '../../src/web/i18n/fr.js';
import { pdfText } from '../../testkit/pdf-text.js';
import { E2E_JOBS, expect, test, type GlimpseServer } from './fixtures';

const JOB = 'screening-consent';
const INCOMPLETE = "Vérifiez que vous avez bien complété tous les champs et accepté l'ensemble des conditions.";

/** What a participant types; every test uses its own email, so the consents rows are told apart by it. */
function identity() {
  const tag = randomUUID().slice(0, 8);
  return {
    email: `participant-${tag}@univ-nantes.fr`,
    name: 'Éloïse',
    familyName: `Lefèvre-${tag}`,
    birthCountry: 'Côte d’Ivoire',
    birthDay: '1991-04-23',
    paraphe: 'EL',
    gender: 'Mme.' as const,
  };
}
type Identity = ReturnType<typeof identity>;

const labLink = (email: string | null, job = JOB, route = 'pvid') =>
  `/${route}/${job}?${new URLSearchParams({ platform: 'nantes', ...(email === null ? {} : { email }) })}`;

/** Eligibility (French) then the welcome screen, which on the lab platform has no privacy box. */
async function passEligibilityAndWelcome(page: Page, link: string): Promise<void> {
  await page.goto(link);
  await page.getByRole('button', { name: 'Continuer' }).click();
  await expect(page.locator('#privacy-consent')).toHaveCount(0);
  await page.getByRole('button', { name: 'Suivant' }).click();
}

/** Fills the form as a participant would; `skip` leaves one item untouched. */
async function fillConsent(page: Page, who: Identity, skip?: string): Promise<void> {
  const form = page.locator('form.consent-form');
  for (const box of ['infoSheetRead', 'adultNoLegalProtection', 'proposalReceived', 'termsUnderstood']) {
    if (box !== skip) await form.locator(`input[name="${box}"]`).check();
  }
  for (const question of [fr.consentParticipationQuestion, fr.consentDataQuestion]) {
    if (question !== skip) await form.getByRole('group', { name: question }).getByLabel('Je consens').check();
  }
  if (skip !== 'gender') await form.getByRole('radio', { name: who.gender, exact: true }).check();
  const fields: Array<[string, string]> = [
    ['Prénom', who.name],
    ['Nom de famille', who.familyName],
    ['Pays de naissance', who.birthCountry],
    // The French order the field asks for (jj/mm/aaaa); stored as the ISO day.
    ['Date de naissance', who.birthDay.split('-').reverse().join('/')],
    ['Paraphe (initiales)', who.paraphe],
  ];
  for (const [label, value] of fields) if (label !== skip) await form.getByLabel(label, { exact: true }).fill(value);
}

function consentsOf(glimpse: GlimpseServer, email: string) {
  return glimpse.db.selectFrom('consents').selectAll().where('email', '=', email).execute();
}

const instructionsShown = async (page: Page) => {
  await expect(page.getByRole('heading', { name: 'Consignes (screening-consent)' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Aller au test' })).toBeVisible();
};

test('a lab participant with an email sees the French form, the email read-only, and the links to both documents', async ({ page }) => {
  const who = identity();
  await passEligibilityAndWelcome(page, labLink(who.email));
  await expect(page.getByRole('heading', { name: 'Formulaire de consentement' })).toBeVisible();
  const email = page.getByLabel('Adresse e-mail');
  await expect(email).toHaveValue(who.email);
  await expect(email).not.toBeEditable();
  await expect(page.getByRole('link', { name: "fiche d'information" })).toHaveAttribute('href', '/ficheInfo?lang=fr');
  await expect(page.getByRole('link', { name: 'politique de confidentialité' })).toHaveAttribute('href', '/rgpd_file?lang=fr');
  await expect(page.getByRole('button', { name: 'Valider' })).toBeVisible();
});

for (const skip of ['termsUnderstood', fr.consentDataQuestion, 'Pays de naissance', 'gender']) {
  test(`one missing item (${skip.slice(0, 40)}) shows the red message and sends and stores nothing`, async ({ page, glimpse }) => {
    const who = identity();
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/consent')) posts.push(r.url());
    });
    await passEligibilityAndWelcome(page, labLink(who.email));
    await fillConsent(page, who, skip);
    await page.getByRole('button', { name: 'Valider' }).click();

    const message = page.getByText(INCOMPLETE, { exact: true });
    await expect(message).toBeVisible();
    await expect(message).toHaveCSS('color', 'rgb(255, 0, 0)');
    await expect(page.getByRole('heading', { name: 'Formulaire de consentement' })).toBeVisible();
    // The check runs before any post, in the same click handler: by the time the message shows, a post would have left.
    expect(posts).toEqual([]);
    expect(await consentsOf(glimpse, who.email)).toEqual([]);
  });
}

test('a complete form stores the consent, answers the signed PDF (downloaded) and leads to the instructions', async ({ page, glimpse }) => {
  const who = identity();
  await passEligibilityAndWelcome(page, labLink(who.email));
  // First a try with a box missing: the message goes once the form is complete.
  await fillConsent(page, who, 'adultNoLegalProtection');
  await page.getByRole('button', { name: 'Valider' }).click();
  await expect(page.getByText(INCOMPLETE, { exact: true })).toBeVisible();
  await page.locator('input[name="adultNoLegalProtection"]').check();

  const answer = page.waitForResponse((r) => r.url().endsWith('/api/consent/') && r.request().method() === 'POST');
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Valider' }).click();
  const response = await answer;
  await instructionsShown(page);

  expect(response.status()).toBe(201);
  expect(response.headers()['content-type']).toBe('application/pdf');
  const pdf = await response.body();
  expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  const text = pdfText(pdf);
  expect(text).toContain(who.familyName);
  expect(text).toContain(who.name);
  expect(text).toContain(`Je soussigné(e) Mme. ${who.name} ${who.familyName}, né(e) le 23/04/1991`);
  expect(text).toContain(who.email);

  // The participant keeps the very bytes the server answered.
  const saved = await download;
  expect(saved.suggestedFilename()).toBe('consentement.pdf');
  expect((await readFile((await saved.path())!)).equals(pdf)).toBe(true);

  const sent = response.request().postDataJSON() as { currentDate: { day: number; month: number; year: number } };
  const { day, month, year } = sent.currentDate;
  const rows = await consentsOf(glimpse, who.email);
  expect(rows).toEqual([
    {
      id: expect.any(Number),
      email: who.email,
      paraphe: who.paraphe,
      gender: who.gender,
      name: who.name,
      family_name: who.familyName,
      birth_country: who.birthCountry,
      birth_day: who.birthDay,
      signed_on: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
      created_at: expect.any(String),
    },
  ]);
  const today = new Date();
  expect(new Date(year, month - 1, day).toDateString()).toBe(today.toDateString());
});

test('when the consent post fails, the flow still goes on to the instructions (nothing stored)', async ({ page, glimpse }) => {
  const who = identity();
  await page.route('**/api/consent/', (route) => route.abort('connectionrefused'));
  await passEligibilityAndWelcome(page, labLink(who.email));
  await fillConsent(page, who);
  await page.getByRole('button', { name: 'Valider' }).click();
  await instructionsShown(page);
  await expect(page.getByText(INCOMPLETE, { exact: true })).toHaveCount(0);
  expect(await consentsOf(glimpse, who.email)).toEqual([]);
});

test('without the email parameter, the lab welcome leads straight to the instructions', async ({ page }) => {
  await passEligibilityAndWelcome(page, labLink(null));
  await instructionsShown(page);
  await expect(page.getByRole('heading', { name: 'Formulaire de consentement' })).toHaveCount(0);
});

test('another platform with an email gets the privacy box, not the consent form', async ({ page }) => {
  await page.goto(`/pvid/${JOB}?platform=prolific&email=someone%40example.org`);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByText('Please check the above consent about Privacy Policy.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', '/rgpd_file?platform=prolific');
  await page.getByLabel('I have read and I accept the').check();
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByRole('button', { name: 'Go to the test' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Formulaire de consentement' })).toHaveCount(0);
});

test('the piiface page runs the same consent step for a lab participant with an email', async ({ page, glimpse }) => {
  const who = identity();
  await passEligibilityAndWelcome(page, labLink(who.email, E2E_JOBS.piiface, 'piiface'));
  await expect(page.getByLabel('Adresse e-mail')).toHaveValue(who.email);
  await fillConsent(page, who);
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/consent/'));
  await page.getByRole('button', { name: 'Valider' }).click();
  expect((await answer).status()).toBe(201);
  await expect(page.getByRole('button', { name: /^(Aller au test|Aller à l'entraînement)$/ })).toBeVisible();
  expect(await consentsOf(glimpse, who.email)).toHaveLength(1);
});
