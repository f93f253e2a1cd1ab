import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../../testkit/databases.js';
import { json, useServer } from '../../testkit/server.js';
import { FIXTURE_MEDIA, jobFields, PAIR_STUDY, writeStudy } from '../../testkit/studies.js';

const INDEX = '<!doctype html><html><head><title>Glimpse</title></head><body><div id="root"></div></body></html>';

async function buildFakeWebApp(webDir: string): Promise<void> {
  await mkdir(join(webDir, 'assets'), { recursive: true });
  await writeFile(join(webDir, 'index.html'), INDEX);
  await writeFile(join(webDir, 'assets', 'index-Bx7f3k2a.js'), 'console.log("app")');
  await writeFile(join(webDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
}

describeEachDialect('GET /meta.json and the web app', (dialect) => {
  const ctx = useServer(dialect);

  it('answers the version exactly', async () => {
    const res = await ctx().app.inject('/meta.json');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('{"version":"1.8.9"}');
  });

  it('serves index.html with the media base meta tag for every client route, never cached', async () => {
    await buildFakeWebApp(ctx().webDir);
    for (const path of ['/', '/pvid/fixture-pair', '/bubble/x?dd=1000&ft=1', '/monoyer', '/rgpd_file', '/some/unknown/page', '/index.html']) {
      const res = await ctx().app.inject(path);
      expect(res.statusCode, path).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toContain('<meta name="glimpse-media-base" content="">');
      expect(res.body).toContain('<div id="root"></div>');
    }
  });

  it('serves hashed assets as immutable and other files as revalidated', async () => {
    await buildFakeWebApp(ctx().webDir);
    const asset = await ctx().app.inject('/assets/index-Bx7f3k2a.js');
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toContain('javascript');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const icon = await ctx().app.inject('/favicon.svg');
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it('answers JSON 404 for unknown API paths, whatever the method', async () => {
    await buildFakeWebApp(ctx().webDir);
    for (const [method, url] of [['GET', '/api/nothing'], ['POST', '/api/nothing/'], ['GET', '/api/ratings/'], ['DELETE', '/pvid/x']] as const) {
      const res = await ctx().app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(json(res)).toMatchObject({ error: 'NOT_FOUND', message: expect.any(String) });
    }
  });

  it('says so when the web app is not built', async () => {
    const res = await ctx().app.inject('/pvid/x');
    expect(res.statusCode).toBe(503);
    expect(json(res).error).toBe('WEB_APP_NOT_BUILT');
  });
});

describeEachDialect('GET /resmedias/{jobId}/{path}', (dialect) => {
  const ctx = useServer(dialect);
  const videoStudy = () =>
    writeStudy({ id: 'video-acr', job: jobFields('absolute_category_rating', { category_id: 5 }), playlists: [{ stimuli: [{ source: 'clip.mp4' }] }] });

  it('serves the bytes with content type, length and cache headers', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const res = await ctx().app.inject('/resmedias/fixture-pair/red.png');
    expect(res.statusCode).toBe(200);
    const bytes = await readFile(join(FIXTURE_MEDIA, 'red.png'));
    expect(res.headers['content-type']).toBe('image/png');
    expect(Number(res.headers['content-length'])).toBe(bytes.length);
    expect(res.rawPayload.equals(bytes)).toBe(true);
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.headers.etag).toBeTruthy();
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const head = await ctx().app.inject({ method: 'HEAD', url: '/resmedias/fixture-pair/red.png' });
    expect(head.statusCode).toBe(200);
    expect(Number(head.headers['content-length'])).toBe(bytes.length);
  });

  it('answers range requests on video', async () => {
    await ctx().importStudy(await videoStudy());
    const bytes = await readFile(join(FIXTURE_MEDIA, 'clip.mp4'));
    const res = await ctx().app.inject({ url: '/resmedias/video-acr/clip.mp4', headers: { range: 'bytes=100-199' } });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-type']).toBe('video/mp4');
    expect(res.headers['content-range']).toBe(`bytes 100-199/${bytes.length}`);
    expect(res.rawPayload.equals(bytes.subarray(100, 200))).toBe(true);
    const tail = await ctx().app.inject({ url: '/resmedias/video-acr/clip.mp4', headers: { range: 'bytes=-10' } });
    expect(tail.rawPayload.equals(bytes.subarray(bytes.length - 10))).toBe(true);
    const beyond = await ctx().app.inject({ url: '/resmedias/video-acr/clip.mp4', headers: { range: `bytes=${bytes.length + 5}-` } });
    expect(beyond.statusCode).toBe(416);
  });

  it('answers 416 with Content-Range: bytes */{size} when no range is satisfiable (RFC 9110 §15.5.17)', async () => {
    await ctx().importStudy(await videoStudy());
    const size = (await readFile(join(FIXTURE_MEDIA, 'clip.mp4'))).length;
    for (const range of [`bytes=${size}-`, `bytes=${size + 5}-${size + 10}`, 'bytes=-0', `bytes=${size}-,${size + 1}-`, 'bytes=99999999999999999999-']) {
      const res = await ctx().app.inject({ url: '/resmedias/video-acr/clip.mp4', headers: { range } });
      expect(res.statusCode, range).toBe(416);
      expect(res.headers['content-range'], range).toBe(`bytes */${size}`);
      expect(json(res).error).toBe('RANGE_NOT_SATISFIABLE');
    }
  });

  it('ignores a Range that is not a valid bytes range-set: 200 with the whole file (RFC 9110 §14.2)', async () => {
    await ctx().importStudy(await videoStudy());
    const bytes = await readFile(join(FIXTURE_MEDIA, 'clip.mp4'));
    for (const range of ['bytes=abc', 'items=0-1', 'bytes=5-3', 'bytes=1-2-3', 'bytes=', 'bytes=0-1,x', 'bytes 0-1', '=0-1', 'bytes=--5']) {
      const res = await ctx().app.inject({ url: '/resmedias/video-acr/clip.mp4', headers: { range } });
      expect(res.statusCode, range).toBe(200);
      expect(res.headers['content-range'], range).toBeUndefined();
      expect(Number(res.headers['content-length']), range).toBe(bytes.length);
      expect(res.rawPayload.equals(bytes), range).toBe(true);
    }
  });

  it('keeps valid ranges in any case and spacing, and If-Range', async () => {
    await ctx().importStudy(await videoStudy());
    const bytes = await readFile(join(FIXTURE_MEDIA, 'clip.mp4'));
    const url = '/resmedias/video-acr/clip.mp4';
    // The unit is case-insensitive; list elements may have spaces and empty elements around commas.
    for (const range of ['Bytes=10-19', 'bytes=10-19 ,', 'bytes=, 10-19']) {
      const res = await ctx().app.inject({ url, headers: { range } });
      expect(res.statusCode, range).toBe(206);
      expect(res.headers['content-range'], range).toBe(`bytes 10-19/${bytes.length}`);
      expect(res.rawPayload.equals(bytes.subarray(10, 20)), range).toBe(true);
    }
    // A last-pos past the end is cut to the end; an open range runs to the end.
    const open = await ctx().app.inject({ url, headers: { range: `bytes=${bytes.length - 4}-${bytes.length + 100}` } });
    expect(open.statusCode).toBe(206);
    expect(open.headers['content-range']).toBe(`bytes ${bytes.length - 4}-${bytes.length - 1}/${bytes.length}`);
    // If-Range: the range applies to the version named, otherwise the whole (new) file is sent.
    const { etag } = (await ctx().app.inject(url)).headers;
    const fresh = await ctx().app.inject({ url, headers: { range: 'bytes=0-9', 'if-range': String(etag) } });
    expect(fresh.statusCode).toBe(206);
    expect(fresh.rawPayload.equals(bytes.subarray(0, 10))).toBe(true);
    const stale = await ctx().app.inject({ url, headers: { range: 'bytes=0-9', 'if-range': 'W/"0-0"' } });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.equals(bytes)).toBe(true);
    // A stale If-Range also turns an unsatisfiable range into the whole file rather than 416.
    const staleBeyond = await ctx().app.inject({ url, headers: { range: `bytes=${bytes.length}-`, 'if-range': 'W/"0-0"' } });
    expect(staleBeyond.statusCode).toBe(200);
  });

  it('never leaves the media store', async () => {
    await ctx().importStudy(PAIR_STUDY);
    // A symlink planted inside the store that points outside of it.
    await symlink('/etc/passwd', join(ctx().mediaDir, 'fixture-pair', 'evil.png'));
    // "../" and "%2e%2e/" are resolved by the URL parser before routing: they land outside /resmedias.
    for (const url of ['/resmedias/fixture-pair/../../package.json', '/resmedias/fixture-pair/%2e%2e/%2e%2e/etc/passwd']) {
      const res = await ctx().app.inject(url);
      expect(res.body).not.toContain('"name": "glimpse"');
      expect(res.body).not.toContain('root:');
    }
    const attempts = [
      '/resmedias/fixture-pair/..%2F..%2Fpackage.json',
      '/resmedias/..%5c..%5cetc%5cpasswd',
      '/resmedias//etc/passwd',
      '/resmedias/%2Fetc%2Fpasswd',
      '/resmedias/fixture-pair/.hidden',
      '/resmedias/fixture-pair/evil.png',
      '/resmedias/fixture-pair/red.png%00.txt',
    ];
    for (const url of attempts) {
      const res = await ctx().app.inject(url);
      expect([400, 404], url).toContain(res.statusCode);
      expect(json(res).error, url).toMatch(/BAD_MEDIA_NAME|NOT_FOUND/);
      expect(res.body).not.toContain('root:');
    }
    expect((await ctx().app.inject('/resmedias/fixture-pair/missing.png')).statusCode).toBe(404);
    expect((await ctx().app.inject('/resmedias/other-job/red.png')).statusCode).toBe(404);
  });
});

describeEachDialect('MEDIA_BASE_URL as a path prefix', (dialect) => {
  const ctx = useServer(dialect, { mediaBaseUrl: '/media' });

  it('injects the base into index.html and serves media under it', async () => {
    await buildFakeWebApp(ctx().webDir);
    await ctx().importStudy(PAIR_STUDY);
    expect((await ctx().app.inject('/acr/x')).body).toContain('<meta name="glimpse-media-base" content="/media">');
    expect((await ctx().app.inject('/media/resmedias/fixture-pair/red.png')).statusCode).toBe(200);
    expect((await ctx().app.inject('/resmedias/fixture-pair/red.png')).statusCode).toBe(200);
  });
});
