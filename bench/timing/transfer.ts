/**
 * What goes over the wire before a participant's first screen: the built app (the scratch build of
 * bundleSize.ts, with its brotli/gzip copies) served by the real server, a participant link opened in Chromium
 * with an empty cache, every response's encoded bytes (DevTools Network.loadingFinished: headers and body as
 * transferred) summed until the eligibility check is on screen. Measured twice in the same run: with the build's
 * compressed copies (as served now) and with them turned off (as served before: the baseline).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { startServer } from '../../src/server/start';

export interface TransferFigures {
  ok: boolean;
  error?: string;
  /** The page opened (a demo pair job, English). */
  page: string;
  compressed: { bytes: number; kb: number; requests: number; encodings: Record<string, number> };
  plain: { bytes: number; kb: number; requests: number; encodings: Record<string, number> };
  /** compressed / plain. */
  ratio: number;
}

const STUDY = 'tests/server/fixtures/pair-study.json';
const LINK = '/pvid/fixture-pair?platform=prolific&PROLIFIC_PID=transfer';

export async function measureTransfer(repoRoot: string, webDir: string): Promise<TransferFigures> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox'] });
  const empty = { bytes: 0, kb: 0, requests: 0, encodings: {} };
  try {
    const compressed = await firstScreen(browser, repoRoot, webDir, true);
    const plain = await firstScreen(browser, repoRoot, webDir, false);
    return { ok: true, page: LINK, compressed, plain, ratio: Math.round((compressed.bytes / plain.bytes) * 1000) / 1000 };
  } catch (error) {
    return { ok: false, error: String((error as Error).message ?? error).split('\n')[0], page: LINK, compressed: empty, plain: empty, ratio: 0 };
  } finally {
    await browser.close();
  }
}

async function firstScreen(browser: Browser, repoRoot: string, webDir: string, precompressed: boolean): Promise<TransferFigures['compressed']> {
  const dir = await mkdtemp(path.join(tmpdir(), 'glimpse-transfer-'));
  const server = await startServer({
    port: 0,
    databaseUrl: path.join(dir, 'glimpse.sqlite'),
    mediaDir: path.join(dir, 'media'),
    webDir,
    studies: [path.join(repoRoot, STUDY)],
    precompressedWeb: precompressed,
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const encodingOf = new Map<string, string>();
    const bytesOf = new Map<string, number>();
    cdp.on('Network.responseReceived', (e: { requestId: string; response: { headers: Record<string, string> } }) => {
      const headers = Object.fromEntries(Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), v]));
      encodingOf.set(e.requestId, headers['content-encoding'] ?? 'none');
    });
    cdp.on('Network.loadingFinished', (e: { requestId: string; encodedDataLength: number }) => bytesOf.set(e.requestId, e.encodedDataLength));
    await page.goto(`${server.url}${LINK}`);
    await page.getByRole('heading', { name: 'Eligibility check' }).waitFor({ timeout: 60_000 });
    // Responses still finishing when the screen shows count too.
    await page.waitForLoadState('networkidle');
    const encodings: Record<string, number> = {};
    for (const [id] of bytesOf) encodings[encodingOf.get(id) ?? 'none'] = (encodings[encodingOf.get(id) ?? 'none'] ?? 0) + 1;
    const bytes = [...bytesOf.values()].reduce((a, b) => a + b, 0);
    return { bytes, kb: Math.round((bytes / 1024) * 10) / 10, requests: bytesOf.size, encodings };
  } finally {
    await context.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}
