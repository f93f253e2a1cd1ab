import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/server/app.js';
import { openStorage } from '../src/server/storage/open.js';
import type { Storage } from '../src/server/storage/types.js';
import { importStudy } from '../src/server/study/import.js';
import { PAIR_STUDY } from './studies.js';

/** A real server (Fastify over a fresh SQLite file) listening on a random port, with the pair fixture study imported. */
export interface LiveServer {
  url: string;
  storage: Storage;
  close(): Promise<void>;
}

export async function startLiveServer(studies: string[] = [PAIR_STUDY]): Promise<LiveServer> {
  const dir = await mkdtemp(join(tmpdir(), 'glimpse-live-'));
  const storage = await openStorage({ databaseUrl: join(dir, 'live.sqlite') });
  const mediaDir = join(dir, 'media');
  for (const study of studies) await importStudy(storage, study, mediaDir);
  const app = await buildApp({ storage, mediaDir, webDir: join(dir, 'web') });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    storage,
    async close() {
      await app.close();
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The window a flow test runs in (Node has none): a 1280x720 page in a 1280x800 window on a 1920x1080 screen,
 * Chromium's user agent, nothing in fullscreen.
 */
export function testWindow(overrides: { userAgent?: string; mediaBase?: string } = {}): Window {
  const sized = { innerWidth: 1280, innerHeight: 720, outerWidth: 1280, outerHeight: 800 };
  // index.html's <meta name="glimpse-media-base">: where the media are fetched from.
  const mediaBase = { getAttribute: (name: string) => (name === 'content' ? (overrides.mediaBase ?? '') : null) };
  return {
    ...sized,
    screen: { width: 1920, height: 1080, availWidth: 1920, availHeight: 1040 },
    document: { documentElement: { scrollWidth: 1280, scrollHeight: 720 }, querySelector: () => mediaBase },
    navigator: { userAgent: overrides.userAgent ?? 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36' },
  } as unknown as Window;
}
