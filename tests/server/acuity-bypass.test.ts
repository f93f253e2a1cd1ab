/**
 * The acuity test's developer bypass (SPEC §5 "A developer bypass value is also accepted"): with ACUITY_BYPASS set,
 * the server puts the value's SHA-256 into every index.html it serves, under the meta name the client reads; the
 * client then accepts the value typed. Only the hash is served. Not a storage feature: SQLite is enough here.
 * The served page is parsed (jsdom) and read by the client's own reader, readAcuityBypassHash.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
// @ts-expect-error jsdom ships no type declarations (and @types/jsdom is not installed)
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/server/config.js';
import { ACUITY_BYPASS_META, isAcuityAnswerAccepted, readAcuityBypassHash } from '../../src/web/screens/visual/visualChecks.js';
import { useServer } from '../../testkit/server.js';

const BYPASS = 'lab-dev-7Qx!';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A built index.html as vite writes it; `extraHead` lets a test plant a stale tag. */
async function writeIndex(webDir: string, extraHead = ''): Promise<void> {
  await mkdir(webDir, { recursive: true });
  await writeFile(join(webDir, 'index.html'), `<!doctype html><html><head><title>Glimpse</title>${extraHead}</head><body><div id="root"></div></body></html>`);
}

/** The bypass hash as the client reads it from the served page. */
const clientHashOf = (html: string) => readAcuityBypassHash(new JSDOM(html).window.document as Document);

describe('index.html with ACUITY_BYPASS set', () => {
  const ctx = useServer('sqlite', { acuityBypass: BYPASS });

  it('carries the SHA-256 of the value (never the value) on every client route, and the client accepts the value', async () => {
    await writeIndex(ctx().webDir);
    for (const path of ['/', '/monoyer', '/visual_test', '/pvid/any-job?platform=nantes']) {
      const res = await ctx().app.inject(path);
      expect(res.statusCode, path).toBe(200);
      expect(res.body, path).toContain(`<meta name="${ACUITY_BYPASS_META}" content="${sha256(BYPASS)}">`);
      expect(res.body, path).not.toContain(BYPASS);
      expect(res.body, path).toContain('<meta name="glimpse-media-base" content="">');
    }
    const hash = clientHashOf((await ctx().app.inject('/monoyer')).body);
    expect(hash).toBe(sha256(BYPASS));
    expect(await isAcuityAnswerAccepted(BYPASS, hash)).toBe(true);
    expect(await isAcuityAnswerAccepted(`${BYPASS}x`, hash)).toBe(false);
  });

  it('replaces a tag already in the built file instead of adding a second one', async () => {
    await writeIndex(ctx().webDir, `<meta name="${ACUITY_BYPASS_META}" content="${sha256('old')}">`);
    const body = (await ctx().app.inject('/monoyer')).body;
    expect(body.match(new RegExp(`name="${ACUITY_BYPASS_META}"`, 'g'))).toHaveLength(1);
    expect(clientHashOf(body)).toBe(sha256(BYPASS));
  });
});

describe('index.html with a bypass wrapped in spaces', () => {
  const ctx = useServer('sqlite', { acuityBypass: `  ${BYPASS} \n` });

  it('hashes the trimmed value, as the client trims what is typed', async () => {
    await writeIndex(ctx().webDir);
    const hash = clientHashOf((await ctx().app.inject('/monoyer')).body);
    expect(hash).toBe(sha256(BYPASS));
    expect(await isAcuityAnswerAccepted(` ${BYPASS} `, hash)).toBe(true);
  });
});

describe('index.html without ACUITY_BYPASS', () => {
  const ctx = useServer('sqlite');

  it('has no bypass tag, so only the chart letters pass', async () => {
    await writeIndex(ctx().webDir);
    const body = (await ctx().app.inject('/monoyer')).body;
    expect(body).not.toContain(ACUITY_BYPASS_META);
    const hash = clientHashOf(body);
    expect(hash).toBeNull();
    expect(await isAcuityAnswerAccepted(BYPASS, hash)).toBe(false);
    expect(await isAcuityAnswerAccepted('RCYHOFMESPA', hash)).toBe(true);
  });

  it('drops a tag left in the built file', async () => {
    await writeIndex(ctx().webDir, `<meta name="${ACUITY_BYPASS_META}" content="${sha256('old')}">`);
    const body = (await ctx().app.inject('/monoyer')).body;
    expect(body).not.toContain(ACUITY_BYPASS_META);
    expect(body).toContain('<div id="root"></div>');
  });
});

describe('configFromEnv', () => {
  it('reads ACUITY_BYPASS; unset or empty means no bypass', () => {
    expect(configFromEnv({ ACUITY_BYPASS: BYPASS }).acuityBypass).toBe(BYPASS);
    expect(configFromEnv({ ACUITY_BYPASS: '' }).acuityBypass).toBeNull();
    expect(configFromEnv({}).acuityBypass).toBeNull();
  });
});
