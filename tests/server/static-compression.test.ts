import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { precompress } from '../../scripts/vite-precompress.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { useServer } from '../../testkit/server.js';

/**
 * The web app's files go over the wire compressed (issue 20): the build writes brotli and gzip copies
 * (scripts/vite-precompress.ts, run here on a small build folder), the server sends the copy the browser accepts
 * with Content-Encoding and Vary, hashed assets cached for a year, and the plain file to a client that accepts none.
 */

const SCRIPT = `export const words = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `word${i % 37}`))};\n`;

async function buildWithCopies(webDir: string): Promise<void> {
  await mkdir(join(webDir, 'assets'), { recursive: true });
  await writeFile(join(webDir, 'index.html'), '<!doctype html><html><head></head><body></body></html>');
  await writeFile(join(webDir, 'assets', 'index-Bx7f3k2a.js'), SCRIPT);
  await writeFile(join(webDir, 'assets', 'tiny-C0ffee12.js'), 'export {};\n');
  const plugin = precompress() as unknown as { configResolved(c: unknown): void; closeBundle(): Promise<void> };
  plugin.configResolved({ root: webDir, build: { outDir: '.' } });
  await plugin.closeBundle();
}

describeEachDialect('compressed web files', (dialect) => {
  const ctx = useServer(dialect);

  it('sends the brotli or gzip copy the browser accepts, with Content-Encoding, Vary and a year of caching', async () => {
    await buildWithCopies(ctx().webDir);
    // Tiny files get no copy (a copy would save less than its headers cost).
    await expect(readFile(join(ctx().webDir, 'assets', 'tiny-C0ffee12.js.br'))).rejects.toThrow();
    const url = '/assets/index-Bx7f3k2a.js';
    const br = await ctx().app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
    expect([br.statusCode, br.headers['content-encoding'], br.headers.vary, br.headers['cache-control']]).toEqual([200, 'br', 'Accept-Encoding', 'public, max-age=31536000, immutable']);
    expect(br.headers['content-type']).toMatch(/^(text|application)\/javascript; charset=utf-8$/);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(SCRIPT);
    expect(br.rawPayload.length).toBeLessThan(SCRIPT.length / 4);

    const gz = await ctx().app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(SCRIPT);

    const plain = await ctx().app.inject({ url, headers: { 'accept-encoding': 'identity' } });
    expect([plain.headers['content-encoding'], plain.body, plain.headers.vary]).toEqual([undefined, SCRIPT, 'Accept-Encoding']);
    // A file without copies is sent plain even to a browser that accepts brotli.
    const tiny = await ctx().app.inject({ url: '/assets/tiny-C0ffee12.js', headers: { 'accept-encoding': 'br' } });
    expect([tiny.statusCode, tiny.headers['content-encoding'], tiny.body]).toEqual([200, undefined, 'export {};\n']);
  });

  it('keeps a hashed asset in memory once sent: no file read per request, and a 304 for the ETag the browser has', async () => {
    await buildWithCopies(ctx().webDir);
    const url = '/assets/index-Bx7f3k2a.js';
    const first = await ctx().app.inject({ url, headers: { 'accept-encoding': 'br' } });
    expect(first.statusCode).toBe(200);
    // Gone from disk (a rebuild removed it): the page that asks for it still gets the same bytes.
    await rm(join(ctx().webDir, 'assets'), { recursive: true });
    const again = await ctx().app.inject({ url, headers: { 'accept-encoding': 'br' } });
    expect([again.statusCode, again.headers['content-encoding'], again.headers.etag]).toEqual([200, 'br', first.headers.etag]);
    expect(brotliDecompressSync(again.rawPayload).toString()).toBe(SCRIPT);
    const cached = await ctx().app.inject({ url, headers: { 'accept-encoding': 'br', 'if-none-match': first.headers.etag as string } });
    expect([cached.statusCode, cached.body]).toEqual([304, '']);
    // A file never sent is looked up on disk: not there, the app's page (client-side routes), as before.
    expect((await ctx().app.inject('/assets/other-D00d1e23.js')).headers['content-type']).toMatch(/^text\/html/);
  });
});
