/**
 * A clip corrupt part-way (issue 36): its container is intact (so the importer's checks pass), its packets from
 * frame 12 on cannot be decoded. The stage decodes a clip whole when it prepares it, so the preparation fails,
 * naming the file, before any trial starts, and the same clip intact prepares as before.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveBenchPage } from '../../../bench/timing/benchPage';
import { corruptFrom } from '../../../testkit/brokenClips';
import { VirtualDisplay } from '../../../testkit/virtualDisplay';

const INTACT = readFileSync(new URL('../../../tests/fixtures/clips/frames-30fps.mp4', import.meta.url));

let served: { url: string; close(): Promise<void> };
let display: VirtualDisplay;

beforeAll(async () => {
  served = await serveBenchPage({ outDir: 'broken-clips-display-test' });
  display = await VirtualDisplay.launch({ refreshHz: 60, width: 640, height: 360, pace: 'free' });
  await display.goto(served.url);
  await display.evaluate(() => window.__bench.ready(), null);
}, 180_000);

afterAll(async () => {
  await display?.close();
  await served?.close();
});

/** Prepares `file` on the stage: its size, or the error the preparation rejected with. */
async function prepare(name: string, file: Buffer): Promise<{ size?: { width: number; height: number }; error?: string; upload?: string | null }> {
  await display.evaluate(([n, data]) => window.__bench.addBase64(n, 'video', 'video/mp4', data), [name, file.toString('base64')] as const);
  const { value } = await display.evaluate(async (n) => {
    try {
      const [size] = await window.__bench.prepare([n]);
      return { size, upload: window.__glimpseStage!.videoUpload(n) };
    } catch (error) {
      return { error: String(error) };
    }
  }, name);
  return value;
}

describe('a clip corrupt part-way', () => {
  it('fails its preparation, naming the file; the intact clip prepares on the stage clock', async () => {
    const broken = await prepare('corrupt-from-12.mp4', await corruptFrom(INTACT, 12));
    expect(broken.error).toMatch(/corrupt-from-12\.mp4/);
    expect(broken.error).toMatch(/cannot be decoded whole/);
    const intact = await prepare('intact.mp4', INTACT);
    expect(intact.error).toBeUndefined();
    expect(intact.upload).not.toBeNull();
  }, 60_000);
});
