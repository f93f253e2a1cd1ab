/**
 * The researcher console in Chromium against the real server (docs/console.md): sign in, upload a study zip and
 * open it; the job page's counters follow a participant who completes in another browser context, with no reload;
 * a pause shows the next participant the paused screen; the CSV and the report downloaded from the page are the
 * CLI's; a viewer sees no platform id and cannot withdraw; no session or a wrong CSRF token changes nothing; and
 * axe-core finds no serious violation on any console page.
 */
import { randomUUID } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { PROTOCOLS } from '../../src/protocols/registry.js';
import { runCli } from '../../src/server/cli.js';
import { jobStatus, userSummaries } from '../../src/server/storage/users.js';
import { addUser, PASSWORD, zipFolder } from '../../testkit/console.js';
import { englishFragments, englishIn, typographyFaults } from '../../testkit/french-scan.js';
import { BCHECK, sessionLogsOf, timingEnvelopeOf } from '../../testkit/participant-bodies.js';
import { E2E_STUDIES_DIR, expect, test, type GlimpseServer } from './fixtures';
import { openInstructions, voteDialog } from './protocols-steps';

const JOB = 'console-acr';
const IMAGES = ['images/landscape_320x180_ref.jpg', 'images/city_320x180_q5.jpg'];

/** A zip of study.json and its two images, as a researcher would upload it. */
async function studyZip(): Promise<Buffer> {
  const folder = await mkdtemp(join(tmpdir(), 'glimpse-console-study-'));
  const study = JSON.parse(await readFile(join(E2E_STUDIES_DIR, 'e2e-acr.json'), 'utf8')) as { id: string; playlists: unknown; quality?: unknown };
  study.id = JOB;
  study.playlists = [{ stimuli: IMAGES.map((source) => ({ source })) }];
  // The timing rule is left out as in quality-acr.json: SwiftShader here drops frames a participant's GPU would not.
  study.quality = { targetAcceptedPerPlaylist: 3, rules: { maxMistimedShare: false } };
  await mkdir(join(folder, 'media/images'), { recursive: true });
  for (const image of IMAGES) await cp(join(E2E_STUDIES_DIR, 'media', image), join(folder, 'media', image));
  await writeFile(join(folder, 'study.json'), JSON.stringify(study, null, 2));
  return zipFolder(folder);
}

/** No serious or critical axe-core violation (WCAG 2.1 A and AA) on the page as it stands. */
async function expectAccessible(page: Page, what: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious, `axe-core on ${what}`).toEqual([]);
}

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto('/console');
  await expect(page.getByRole('heading', { name: 'Sign in to the console' })).toBeVisible();
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
}

/** The CLI, in-process, against the e2e server's database; resolves with what it printed. */
async function cliOutput(glimpse: GlimpseServer, args: string[]): Promise<string> {
  const saved = { ...process.env };
  process.env.DATABASE_URL = glimpse.databaseUrl;
  process.env.MEDIA_DIR = glimpse.mediaDir;
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks: Buffer[] = [];
  const errors: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  err.on('data', (c: Buffer) => errors.push(c));
  try {
    const code = await runCli(args, { out, err });
    expect(code, Buffer.concat(errors).toString()).toBe(0);
    return Buffer.concat(chunks).toString();
  } finally {
    process.env = saved;
  }
}

/** Clicks a download button of the page; resolves with the downloaded file's name and text. */
async function downloadText(page: Page, button: string): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button, exact: true }).click()]);
  return { name: download.suggestedFilename(), text: await readFile((await download.path())!, 'utf8') };
}

/** A participant on the ACR test page: Go to the test, Excellent then Poor, until the verification code. */
async function completeAcr(page: Page, stimuli: number): Promise<void> {
  await page.getByRole('button', { name: 'Go to the test' }).click();
  for (let i = 0; i < stimuli; i++) {
    const modal = await voteDialog(page, i, stimuli);
    await modal.getByRole('button', { name: i === 0 ? 'Excellent' : 'Poor', exact: true }).click();
    await modal.getByRole('button', { name: 'Submit' }).click();
  }
  await expect(page.locator('#verification-code')).toHaveText(/^[A-Z3-9]{12}$/, { timeout: 30_000 });
}

const participantLink = (pid: string) => `/${PROTOCOLS.absolute_category_rating.route}/${JOB}?${new URLSearchParams({ platform: 'prolific', PROLIFIC_PID: pid, STUDY_ID: 'console', SESSION_ID: `s-${pid}` })}`;

test('a researcher uploads a study, previews the draft, opens it, watches a participant complete live, pauses it, and downloads the report and the decisions', async ({ browser, page, glimpse }) => {
  test.setTimeout(240_000);
  const owner = `owner-${randomUUID()}@lab.example`;
  await addUser(glimpse.storage, owner);
  await page.goto('/console');
  await expectAccessible(page, 'the sign-in page');
  await page.getByLabel('E-mail address').fill(owner);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('Wrong e-mail address or password (after 5 failed sign-ins, wait 15 minutes).');
  await signIn(page, owner);
  await expectAccessible(page, 'the studies list');

  // Upload: a zip of study.json and its media, imported as a draft.
  await page.getByRole('link', { name: 'Import a study' }).click();
  await page.getByLabel('Study archive (.zip with study.json and its media)').setInputFiles({ name: 'console-acr.zip', mimeType: 'application/zip', buffer: await studyZip() });
  await expectAccessible(page, 'the import page');
  await page.getByRole('button', { name: 'Import' }).click();
  await expect(page.locator('#import-result')).toContainText(`Imported: ${JOB} (created).`);
  expect(await jobStatus(glimpse.storage, JOB)).toBe('draft');
  await page.locator('#import-result').getByRole('link', { name: JOB }).click();

  // The job page: a draft, with its links and settings, previewed (a marked session that counts nowhere)...
  await expect(page.getByRole('heading', { level: 1 })).toContainText(JOB);
  await expect(page.locator('#job-status')).toHaveText('draft');
  await expect(page.locator('#participant-links')).toContainText(`/acr/${JOB}?platform=prolific&PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}`);
  await expect(page.locator('#completion-url')).toHaveText('Completion URL: none: participants are shown a verification code');
  // Nothing judged nor completed yet: each list says so, as its neighbours do, instead of an empty table or chart.
  await expect(page.locator('#screening-rules')).toHaveText('None');
  await expect(page.locator('#no-completions')).toHaveText('No session completed yet: the chart of completions per hour starts with the first one.');
  await page.locator('#study-settings summary').click();
  await expect(page.locator('#study-settings').getByRole('row', { name: /^targetScreenSizeWidth/ })).toBeVisible();
  await page.getByRole('button', { name: 'Make preview links' }).click();
  const previewLink = (await page.getByRole('link', { name: 'Preview as a Prolific participant (English)' }).getAttribute('href'))!;
  const previewContext = await browser.newContext();
  const previewPage = await previewContext.newPage();
  const preview = await openInstructions(previewPage, previewLink, '/instructions/acr.svg');
  await completeAcr(previewPage, preview.playlist.stimulis.length);
  await previewContext.close();
  expect(await glimpse.db.selectFrom('sessions').select(['id', 'preview']).where('job_id', '=', JOB).execute()).toEqual([{ id: preview.playlist.session_id, preview: 1 }]);
  await expect(page.locator('#stat-started')).toHaveText('0');
  // ... then opened with an explicit confirmation.
  await page.getByRole('button', { name: 'Open', exact: true }).click();
  await expect(page.getByRole('dialog')).toContainText('Open the study to new participants?');
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.locator('#job-status')).toHaveText('open');
  expect(await jobStatus(glimpse.storage, JOB)).toBe('open');
  await expect(page.locator('#stat-started')).toHaveText('0');
  await expect(page.locator('#stat-completed')).toHaveText('0');
  await expectAccessible(page, 'the job overview');

  // A participant completes in another browser context; the counters follow with no reload.
  const loadedAt = await page.evaluate(() => performance.timeOrigin);
  const context = await browser.newContext();
  const participantPage = await context.newPage();
  const pid = `console${randomUUID().slice(0, 8)}`;
  const { playlist } = await openInstructions(participantPage, participantLink(pid), '/instructions/acr.svg');
  await expect(page.locator('#stat-started')).toHaveText('1');
  await expect(page.locator('#stat-running')).toHaveText('1');
  await completeAcr(participantPage, playlist.stimulis.length);
  await expect(page.locator('#stat-completed')).toHaveText('1');
  await expect(page.locator('#stat-running')).toHaveText('0');
  await expect(page.locator('#stat-accepted')).toHaveText('1');
  await expect(page.getByRole('progressbar', { name: 'Playlist 1: 1 / 3' })).toBeVisible();
  expect(await page.evaluate(() => performance.timeOrigin)).toBe(loadedAt);
  await context.close();

  // Pause: the next participant sees the paused screen; nothing is stored for them.
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await expect(page.getByRole('dialog')).toContainText('Pause the study?');
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.locator('#job-status')).toHaveText('paused');
  const late = await browser.newContext();
  const latePage = await late.newPage();
  await latePage.goto(participantLink(`late${randomUUID().slice(0, 8)}`));
  // The job's state is read when the page opens: the paused screen comes first, with nothing to click.
  await expect(latePage.getByText('This study is paused for a moment: it takes no new participants right now. Please try again later.')).toBeVisible();
  await expect(latePage.getByRole('button', { name: 'Continue' })).toHaveCount(0);
  await late.close();
  await expect(page.locator('#stat-started')).toHaveText('1');
  expect(await glimpse.db.selectFrom('sessions').select('id').where('job_id', '=', JOB).where('preview', '=', 0).execute()).toHaveLength(1);

  // Participants: the owner sees the platform ids, found by part of one in another case; the preview is marked.
  await page.getByRole('link', { name: 'Participants' }).click();
  await expect(page.locator('#participants-table')).toContainText(pid);
  await expect(page.locator('#participants-table .preview-mark')).toHaveText('preview');
  await page.getByLabel('Search (session id, or a platform id for owners)').fill(pid.slice(2, 9).toUpperCase());
  await expect(page.getByRole('table', { name: 'Participants: 1' })).toContainText(pid);
  await page.getByLabel('Search (session id, or a platform id for owners)').fill('');
  await expectAccessible(page, 'the participants table');

  // Downloads: only the formats of a rating protocol; the ratings CSV and the report are byte for byte the CLI's
  // (the report's generation time aside).
  await page.getByRole('link', { name: 'Downloads' }).click();
  await expect(page.getByRole('button', { name: 'p910.csv' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'pairs.csv' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'screenings.jsonl' })).toHaveCount(0);
  const csv = await downloadText(page, 'ratings.csv');
  expect(csv.name).toBe(`${JOB}-ratings.csv`);
  expect(csv.text.split('\r\n').filter(Boolean)).toHaveLength(1 + playlist.stimulis.length);
  const cliDir = await mkdtemp(join(tmpdir(), 'glimpse-console-cli-'));
  await cliOutput(glimpse, ['export', JOB, '--out', join(cliDir, 'ratings.csv')]);
  expect(csv.text).toBe(await readFile(join(cliDir, 'ratings.csv'), 'utf8'));
  const report = await downloadText(page, 'Download the report (HTML)');
  await cliOutput(glimpse, ['report', JOB, '--out', join(cliDir, 'report')]);
  const withoutTime = (html: string) => html.replace(/<th[^>]*>Generated<\/th>\s*<td>[^<]*<\/td>/, '');
  expect(report.text).toContain('<th');
  expect(withoutTime(report.text)).toBe(withoutTime(await readFile(join(cliDir, 'report/report.html'), 'utf8')));
  await page.getByRole('button', { name: 'Show the charts' }).click();
  await expect(page.locator('figure.chart canvas').first()).toBeVisible();
  await expectAccessible(page, 'the downloads page with charts');

  // Decisions: judged again (the page says what changed), then Prolific's approve list holds the participant only.
  await page.getByRole('button', { name: 'Judge every session again' }).click();
  await expect(page.locator('#rescreen-result')).toHaveText('Sessions judged: 1 (1 accepted, 0 rejected). Judged for the first time: 0; unchanged: 1; changed: 0.');
  await page.getByRole('button', { name: 'prolific', exact: true }).click();
  const approve = await downloadText(page, 'approve.csv (1)');
  expect(approve.name).toBe(`${JOB}-prolific-approve.csv`);
  expect(approve.text.split('\r\n')[1]!.split(',')[0]).toBe(pid);
});

test('a viewer sees no platform id and cannot withdraw; no session or a wrong CSRF token changes nothing', async ({ browser, page, glimpse, participant }) => {
  // Someone else holds the first (administrator) account, so the viewer is only a viewer.
  await addUser(glimpse.storage, `admin-${randomUUID()}@lab.example`);
  const viewer = `viewer-${randomUUID()}@lab.example`;
  await addUser(glimpse.storage, viewer, { jobId: 'e2e-acr', role: 'viewer' });
  const participantContext = await browser.newContext();
  await openInstructions(await participantContext.newPage(), participant.linkTo('e2e-acr'), '/instructions/acr.svg');
  await participantContext.close();
  const session = (await participant.session('e2e-acr'))!;

  await signIn(page, viewer);
  await expect(page.locator('#jobs-table')).toContainText('e2e-acr');
  await expect(page.locator('#jobs-table')).not.toContainText('e2e-pvid');
  await page.goto('/console/jobs/e2e-acr/participants');
  await expect(page.locator('#participants-table')).toContainText(String(session.id));
  await expect(page.locator('#participants-table')).not.toContainText(participant.pid);
  await expect(page.getByRole('columnheader', { name: 'Platform ids' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Withdraw/ })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Pause', exact: true })).toHaveCount(0);
  await page.getByRole('link', { name: 'Downloads' }).click();
  await expect(page.getByRole('button', { name: 'ratings.csv' })).toHaveCount(0);

  // The API refuses the viewer too, with its own valid CSRF token.
  const { csrfToken } = (await (await page.request.get('/console/api/me')).json()) as { csrfToken: string };
  const withdraw = await page.request.post('/console/api/jobs/e2e-acr/withdraw', { data: { sessionId: session.id, confirm: true }, headers: { 'x-csrf-token': csrfToken } });
  expect([withdraw.status(), ((await withdraw.json()) as { error: string }).error]).toEqual([403, 'FORBIDDEN']);
  expect(await participant.session('e2e-acr')).toMatchObject({ id: session.id });

  // An owner's cookie with a forged CSRF token, and no session at all: nothing changes.
  const owner = `owner-${randomUUID()}@lab.example`;
  await addUser(glimpse.storage, owner, { jobId: 'e2e-acr', role: 'owner' });
  const ownerContext = await browser.newContext({ baseURL: glimpse.url });
  const ownerPage = await ownerContext.newPage();
  await signIn(ownerPage, owner);
  for (const headers of [{ 'x-csrf-token': 'forged' }, {}] as Array<Record<string, string>>) {
    const res = await ownerPage.request.post('/console/api/jobs/e2e-acr/status', { data: { status: 'closed', confirm: true }, headers });
    expect([res.status(), ((await res.json()) as { error: string }).error]).toEqual([403, 'CSRF']);
  }
  const anonymous = await browser.newContext({ baseURL: glimpse.url });
  for (const [url, data] of [
    ['/console/api/jobs/e2e-acr/status', { status: 'closed', confirm: true }],
    ['/console/api/jobs/e2e-acr/withdraw', { sessionId: session.id, confirm: true }],
  ] as const) {
    const res = await anonymous.request.post(url, { data, headers: { 'x-csrf-token': csrfToken } });
    expect([url, res.status()]).toEqual([url, 401]);
  }
  expect((await anonymous.request.get('/console/api/jobs')).status()).toBe(401);
  // Signed out, the console offers its French wording too (the lab's language).
  const signedOut = await anonymous.newPage();
  await signedOut.goto('/console');
  await signedOut.getByRole('button', { name: 'Français' }).click();
  await expect(signedOut.getByRole('heading', { name: 'Connexion à la console' })).toBeVisible();
  await expect(signedOut.getByLabel('Adresse électronique')).toBeVisible();
  await expect(signedOut.locator('html')).toHaveAttribute('lang', 'fr');
  expect(await jobStatus(glimpse.storage, 'e2e-acr')).toBe('open');
  expect(await participant.session('e2e-acr')).toMatchObject({ id: session.id });
  await anonymous.close();
  await ownerContext.close();
});

test('an administrator sees every account and its roles on the Users page; a viewer has no such page', async ({ page, glimpse }) => {
  // Someone holds the first (administrator) account of this database: find it (every test account has PASSWORD).
  await addUser(glimpse.storage, `admin-${randomUUID()}@lab.example`);
  const viewer = `viewer-${randomUUID()}@lab.example`;
  await addUser(glimpse.storage, viewer, { jobId: 'e2e-acr', role: 'viewer' });
  const admin = (await userSummaries(glimpse.storage)).find((u) => u.admin)!.email;

  await signIn(page, viewer);
  await expect(page.getByRole('link', { name: 'Users' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Sign out' }).click();

  await signIn(page, admin);
  await page.getByRole('link', { name: 'Users' }).click();
  await expect(page.getByRole('heading', { name: 'Users' })).toBeVisible();
  const viewerRow = page.locator('#users-table tr', { hasText: viewer });
  // The creation date as the console's language writes it (Intl), not an ISO string.
  await expect(viewerRow.locator('td')).toHaveText([viewer, 'viewer: e2e-acr', '0', /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}:\d{2}\s[AP]M$/]);
  const adminRow = page.locator('#users-table tr', { hasText: admin });
  await expect(adminRow.locator('td').nth(1)).toHaveText('administrator (every study)');
  await expectAccessible(page, 'the users page');
  // In French: roles, dates and the hint in French (the accounts' e-mails are data).
  await page.getByRole('button', { name: 'Français' }).click();
  await expect(viewerRow.locator('td')).toHaveText([viewer, `lecteur${NBSP}: e2e-acr`, '0', /^\d{1,2} \p{L}+\.? \d{4}, \d{2}:\d{2}:\d{2}$/u]);
  await expectFrench(page, 'users page');
});

const FRENCH_JOB = 'etude-fr';
const NBSP = '\u00a0';

/**
 * The text a reader of the French page sees: visible text nodes, those of one element joined as they read, leaving
 * out what is data or in another language on purpose (translate="no": ids, e-mails, file names; lang="en": the
 * switch to English, the English report's chart titles; code).
 */
async function frenchText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const skip = '[translate="no"], [lang]:not([lang="fr"]), code, script, style';
    let text = '';
    let last: Element | null = null;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest(skip) || !parent.checkVisibility()) continue;
      text += (parent === last ? '' : '\n') + node.textContent;
      last = parent;
    }
    return text;
  });
}

/** No English string of the console's tables (nor of the reasons and no-results tables) on the page, and French typography. */
async function expectFrench(page: Page, what: string): Promise<string> {
  const text = await frenchText(page);
  expect(englishIn(text, englishFragments()), `English on the French ${what}`).toEqual([]);
  expect(typographyFaults(text), `French typography of the ${what}`).toEqual([]);
  return text;
}

/** An ACR study with a trap (it shows « Bad »: answer 1), imported by the CLI, owned by `owner`. */
async function importFrenchStudy(glimpse: GlimpseServer, owner: string): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), 'glimpse-console-fr-'));
  const study = JSON.parse(await readFile(join(E2E_STUDIES_DIR, 'e2e-acr.json'), 'utf8')) as { id: string; playlists: unknown };
  const images = [...IMAGES, 'images/still-life_320x180_blur2.jpg'];
  study.id = FRENCH_JOB;
  study.playlists = [{ stimuli: [{ source: images[0] }, { source: images[1] }, { source: images[2], check: { kind: 'trap', answer: 1 } }] }];
  await mkdir(join(folder, 'media/images'), { recursive: true });
  for (const image of images) await cp(join(E2E_STUDIES_DIR, 'media', image), join(folder, 'media', image));
  await writeFile(join(folder, 'study.json'), JSON.stringify(study, null, 2));
  await cliOutput(glimpse, ['import', join(folder, 'study.json')]);
  await addUser(glimpse.storage, owner, { jobId: FRENCH_JOB, role: 'owner' });
}

/**
 * A participant through the API as the page posts: each answer's ACR index (0 = Excellent … 4 = Bad) by stimulus
 * role, timed unless `untimed`; then the session logs and the code, which judges the session. Returns its id and
 * the trap's stimulus id.
 */
async function answerFrenchStudy(page: Page, glimpse: GlimpseServer, pid: string, index: { trap: number; other: number }, untimed = false) {
  const { id: bcheckId } = (await (await page.request.post('/api/bchecks/', { data: BCHECK })).json()) as { id: number };
  const query = new URLSearchParams({ platform: 'prolific', PROLIFIC_PID: pid, STUDY_ID: 'fr', SESSION_ID: `s-${pid}`, bcheckId: String(bcheckId) });
  const playlist = (await (await page.request.get(`/api/getacr/${FRENCH_JOB}?${query}`)).json()) as { session_id: number; sessionToken: string; stimulis: Array<{ stimuliId: number }> };
  const specs = await glimpse.db.selectFrom('stimuli').select(['id', 'spec']).where('id', 'in', playlist.stimulis.map((s) => s.stimuliId)).execute();
  const trap = specs.find((s) => s.spec.includes('"check"'))!.id;
  for (const [i, { stimuliId }] of playlist.stimulis.entries()) {
    const timing = untimed && i === 0 && stimuliId !== trap ? {} : { timing: timingEnvelopeOf() };
    const body = { stimuli_id: stimuliId, session_id: playlist.session_id, session_token: playlist.sessionToken, value: stimuliId === trap ? index.trap : index.other, nbReplay: 0, logs: null, ...timing };
    expect((await page.request.post('/api/ratings/', { data: body })).status()).toBe(201);
  }
  expect((await page.request.post('/api/sessionlogs/', { data: sessionLogsOf(playlist.sessionToken) })).status()).toBe(201);
  expect((await page.request.get(`/api/sessions/token/${playlist.sessionToken}`)).status()).toBe(200);
  return { sessionId: playlist.session_id, trap };
}

test('the French console is French: every page, the reasons with the answers as participants saw them, dates, protocol names, and why no chart is drawn', async ({ page, glimpse }) => {
  test.setTimeout(180_000);
  const owner = `proprietaire-${randomUUID()}@lab.example`;
  await importFrenchStudy(glimpse, owner);
  // One participant answers the trap « Excellent » (rejected); the other answers it right but one answer has no
  // timing record (excluded, paid). Every session is left out of the analysis: the report has no results.
  const rejected = await answerFrenchStudy(page, glimpse, `fr${randomUUID().slice(0, 8)}`, { trap: 0, other: 1 });
  const excluded = await answerFrenchStudy(page, glimpse, `fr${randomUUID().slice(0, 8)}`, { trap: 4, other: 3 }, true);
  const untimed = (await glimpse.db.selectFrom('ratings').select(['stimulus_id', 'timing']).where('session_id', '=', excluded.sessionId).execute()).find((r) => r.timing === null)!.stimulus_id;

  await page.goto('/console');
  await page.getByRole('button', { name: 'Français' }).click();
  await expect(page.getByRole('heading', { name: 'Connexion à la console' })).toBeVisible();
  await expectFrench(page, 'sign-in page');
  await page.getByLabel('Adresse électronique').fill(owner);
  await page.getByLabel('Mot de passe').fill(PASSWORD);
  await page.getByRole('button', { name: 'Se connecter' }).click();

  // The studies: named once (the heading names the table), the protocol in words.
  const studies = page.getByRole('table', { name: 'Études' });
  await expect(studies.getByRole('columnheader')).toHaveText(['Étude', 'Protocole', 'État', 'Commencées', 'Terminées', 'Approuvées', 'Rejetées', 'Liens des participants']);
  await expect(studies.getByRole('row', { name: new RegExp(FRENCH_JOB) }).getByRole('cell').nth(1)).toHaveText('Notation sur une échelle de catégories (ACR)');
  expect((await page.locator('main').innerText()).match(/Études/g)).toHaveLength(1);
  await expectFrench(page, 'studies list');

  // The overview: the rejections with their reasons in French, the trap's answers by the labels the French page shows.
  await studies.getByRole('link', { name: FRENCH_JOB }).click();
  await expect(page.locator('main p.muted').first()).toHaveText(`Protocole${NBSP}: Notation sur une échelle de catégories (ACR)`);
  const trapReason = `Question indiquant la réponse à donner manquée (1 stimulus sur 1 manqué${NBSP}: stimulus ${rejected.trap}${NBSP}: répondu Excellente, attendu Mauvaise)`;
  const untimedReason = `Un stimulus n’a pas pu être montré en entier (erreur de média ou affichage interrompu) (1 réponse sur 3 pas montrée jusqu’au bout${NBSP}: stimulus ${untimed}${NBSP}: aucun relevé de minutage)`;
  await expect(page.locator('#rejections li')).toHaveCount(2);
  expect((await page.locator('#rejections li').allTextContents()).sort()).toEqual(
    [`Session ${rejected.sessionId} (Paiement${NBSP}: rejeter, Analyse${NBSP}: exclure)${NBSP}: ${trapReason}`, `Session ${excluded.sessionId} (Paiement${NBSP}: approuver, Analyse${NBSP}: exclure)${NBSP}: ${untimedReason}`].sort(),
  );
  await expect(page.locator('#screening-rules')).toContainText('Question indiquant la réponse à donner manquée');
  await expect(page.locator('figure.chart canvas')).toBeVisible();
  await expectFrench(page, 'job overview');

  // Participants: dates as French writes them, the reasons in French.
  await page.getByRole('link', { name: 'Participants' }).click();
  const row = page.locator(`#participants-table tbody tr:has(td:first-child:text-is("${rejected.sessionId}"))`);
  await expect(row.locator('td').nth(3)).toHaveText(/^\d{1,2} \p{L}+\.? \d{4}, \d{2}:\d{2}:\d{2}$/u);
  await expect(row.locator('td').nth(8)).toHaveText(trapReason);
  await expectFrench(page, 'participants page');

  // Downloads: the report has no results, so no chart: the page says why, as the report does, in its language.
  await page.getByRole('link', { name: 'Téléchargements' }).click();
  await page.getByRole('button', { name: 'Afficher les graphiques' }).click();
  const keepFr = `«${NBSP}Garder les sessions rejetées pour le paiement${NBSP}» ou «${NBSP}Garder les sessions exclues pour raison technique${NBSP}»`;
  await expect(page.locator('#no-charts')).toHaveText(`Aucun résultat${NBSP}: aucun vote de notation utilisable. 2 sessions ont été écartées par le contrôle de qualité\u202f; ${keepFr} les garde.`);
  await expect(page.locator('figure.chart')).toHaveCount(0);
  await expectFrench(page, 'downloads page without results');
  await page.getByRole('button', { name: 'English', exact: true }).click();
  await expect(page.locator('#no-charts')).toHaveText(
    'No results: no usable rating votes. 2 sessions were left out by quality control; “Keep sessions rejected for payment” or “Keep sessions excluded for technical reasons” keeps them.',
  );
  await page.getByRole('button', { name: 'Français', exact: true }).click();
  // Kept, both sessions give results: the charts are drawn and the explanation goes.
  await page.getByLabel('Garder les sessions rejetées pour le paiement').check();
  await page.getByLabel('Garder les sessions exclues pour raison technique').check();
  await page.getByRole('button', { name: 'Afficher les graphiques' }).click();
  await expect(page.locator('figure.chart canvas').first()).toBeVisible();
  await expect(page.locator('#no-charts')).toHaveCount(0);
  await expectFrench(page, 'downloads page with charts');
  await expectAccessible(page, 'the French downloads page with charts');

  await page.getByRole('link', { name: 'Importer une étude' }).click();
  await expect(page.getByRole('heading', { name: 'Importer une étude' })).toBeVisible();
  await expectFrench(page, 'import page');
});
