/**
 * The virtual display (testkit/virtualDisplay.ts) on the headless shell: a page that paints the code of its rAF
 * count; every frame is captured and decoded from its pixels, and the page's rAF timestamps follow the times sent.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeAt, codeColor, codeHex, decodeColor, decodePng, MAX_CODE } from '../../testkit/frameCode';
import { againOnLostCapture, keepRecentCaptures, LostCaptureError, pictureOfFrame, VirtualDisplay } from '../../testkit/virtualDisplay';

const PAGE = `data:text/html,${encodeURIComponent(`<!doctype html><body style="margin:0;background:#808080">
<div id="box" style="position:absolute;left:10px;top:10px;width:40px;height:40px"></div>
<script>
const levels = ${JSON.stringify([16, 48, 80, 112, 144, 176, 208, 240])};
const hex = (id) => '#' + [levels[(id >> 6) & 7], levels[(id >> 3) & 7], levels[id & 7]].map((v) => v.toString(16).padStart(2, '0')).join('');
window.stamps = [];
function tick(t) { window.stamps.push(t); document.getElementById('box').style.background = hex(window.stamps.length % 512); requestAnimationFrame(tick); }
requestAnimationFrame(tick);
</script></body>`)}`;

describe('frame code', () => {
  it('decodes every code colour and refuses the grey background and colours between levels', () => {
    for (let id = 0; id <= MAX_CODE; id++) expect(decodeColor(codeColor(id))).toBe(id);
    expect(codeHex(0)).toBe('#101010');
    expect(decodeColor([128, 128, 128])).toBeNull();
    expect(decodeColor([16, 16, 30])).toBeNull();
    expect(decodeColor([20, 44, 236])).toBe(0 * 64 + 1 * 8 + 7); // within 12 of levels 16, 48, 240
  });
});

describe('the picture of a captured frame', () => {
  const previous = Buffer.from('the previous picture');
  it('is the screenshot Chromium returned', () => {
    const png = pictureOfFrame({ hasDamage: true, screenshotData: Buffer.from('new').toString('base64') }, previous, 'frame 9');
    expect(png.toString()).toBe('new');
  });
  it('is the previous picture when Chromium drew nothing and returned no screenshot', () => {
    expect(pictureOfFrame({ hasDamage: false }, previous, 'frame 9')).toBe(previous);
  });
  it('is unknown, and named, when Chromium drew but returned no screenshot, or no earlier capture stands for it', () => {
    expect(() => pictureOfFrame({ hasDamage: true }, previous, 'frame 9 (vsync 9)')).toThrow('frame 9 (vsync 9) was drawn but Chromium returned no screenshot of it (hasDamage true)');
    expect(() => pictureOfFrame({ hasDamage: false }, null, 'frame 1 (vsync 1)')).toThrow('frame 1 (vsync 1) was drawn but Chromium returned no screenshot of it (hasDamage false, no previous capture)');
  });
  it('makes a check run once more, and only when a capture was lost', async () => {
    const runs = (failures: Error[]) => {
      let n = 0;
      return { attempt: async () => (n < failures.length ? Promise.reject(failures[n++]) : `passed after ${n}`), count: () => n };
    };
    const lostOnce = runs([new LostCaptureError('frame 3 lost')]);
    expect(await againOnLostCapture(lostOnce.attempt)).toBe('passed after 1');
    const lostTwice = runs([new LostCaptureError('frame 3 lost'), new LostCaptureError('frame 9 lost')]);
    await expect(againOnLostCapture(lostTwice.attempt)).rejects.toThrow('frame 9 lost');
    const wrongCadence = runs([new Error('expected 3 refreshes, got 2')]);
    await expect(againOnLostCapture(wrongCadence.attempt)).rejects.toThrow('expected 3 refreshes, got 2');
    expect(wrongCadence.count()).toBe(1);
  });
});

describe('virtual display', () => {
  let display: VirtualDisplay;
  beforeAll(async () => {
    display = await VirtualDisplay.launch({ refreshHz: 144, width: 320, height: 180 });
    await display.goto(PAGE);
  }, 60000);
  afterAll(async () => {
    await display?.close();
  });

  // Run once more only when the harness lost a capture (Chromium returned no screenshot of a frame it drew: this
  // page draws in every frame, so virtualDisplay.ts throws LostCaptureError; once in CI), never on another failure.
  it('draws one rAF per frame sent, at the times sent, and captures what each frame drew', () => againOnLostCapture(async () => {
    const before = await display.read(() => (window as unknown as { stamps: number[] }).stamps.length, null);
    const frames = [];
    for (let i = 0; i < 24; i++) {
      // A missed vsync before frame 12, jitter of ±1 ms on frames 18 and 19.
      const options = i === 12 ? { missedVsyncs: 1 } : i === 18 ? { jitterMs: 1 } : i === 19 ? { jitterMs: -1 } : {};
      frames.push(await display.frame({ ...options, capture: true }));
    }
    const stamps = await display.read(() => (window as unknown as { stamps: number[] }).stamps, null);
    expect(stamps.length).toBe(before + 24);
    const ours = stamps.slice(before);
    for (let i = 1; i < 24; i++) {
      // rAF timestamps are coarsened to 0.1 ms with jitter (each may land on either neighbouring 0.1 ms step, seen
      // 0.144 ms off in a CI run): a difference of two follows the frame times sent within two steps.
      expect(Math.abs(ours[i] - ours[i - 1] - (frames[i].timeMs - frames[i - 1].timeMs))).toBeLessThanOrEqual(0.2);
    }
    expect(frames[12].vsync - frames[11].vsync).toBe(2);
    expect(frames[12].timeMs - frames[11].timeMs).toBeCloseTo(2000 / 144, 6);
    expect(frames[18].timeMs - frames[17].timeMs).toBeCloseTo(1000 / 144 + 1, 6);
    for (const [i, frame] of frames.entries()) {
      const image = await decodePng(frame.png!);
      expect([image.width, image.height]).toEqual([320, 180]);
      // The frame shows the code of the rAF that drew it: what the page drew in that very frame.
      expect(codeAt(image, 30, 30)).toBe((before + i + 1) % 512);
      expect(codeAt(image, 200, 100)).toBeNull();
    }
  }));

  it("keeps a failing check's last captures, named by frame and vsync, the page's last value and the error", async () => {
    const sent = await display.frames(10, { capture: true });
    await display.evaluate(() => ({ record: 'the last play' }), null);
    const [folder, ...others] = keepRecentCaptures('unit check: kept captures', new Error('what failed'));
    expect(others).toEqual([]);
    expect(folder).toBe(join('test-results', 'virtual-display', 'unit-check-kept-captures'));
    const files = readdirSync(folder!).sort();
    // The last 8 captures (the evaluate may have sent frames without capture: they are not pictures).
    const expected = sent.slice(-8).map((f) => `frame-${f.index}-vsync-${f.vsync}.png`);
    expect(files).toEqual([...expected, 'error.json', 'lastValue.json'].sort());
    expect(readFileSync(join(folder!, expected[0]!)).subarray(1, 4).toString()).toBe('PNG');
    expect(JSON.parse(readFileSync(join(folder!, 'lastValue.json'), 'utf8'))).toEqual({ record: 'the last play' });
    expect(JSON.parse(readFileSync(join(folder!, 'error.json'), 'utf8'))).toMatchObject({ name: 'Error', message: 'what failed' });
    rmSync(folder!, { recursive: true });
  });

  it('changes its refresh rate on the fly', async () => {
    display.setRefreshRate(240);
    const frames = await display.frames(3);
    expect(frames[2].timeMs - frames[1].timeMs).toBeCloseTo(1000 / 240, 6);
    expect(frames[0].periodMs).toBeCloseTo(1000 / 240, 9);
  });
});
