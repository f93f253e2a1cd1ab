/** The demo media generator: file names as recipes, idempotence, determinism and visibly ordered quality levels. */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureDemoMedia, parseMediaName } from '../../scripts/demo/index.js';
import { rasterize } from '../../scripts/demo/render-image.js';

describe('parseMediaName', () => {
  it('reads image recipes: subject, size, steps in order, format', () => {
    expect(parseMediaName('images/landscape_640x360_blur1p5_q10.jpg')).toEqual({
      kind: 'image',
      subject: { type: 'scene', scene: 'landscape' },
      width: 640,
      height: 360,
      steps: [
        { op: 'blur', sigma: 1.5 },
        { op: 'jpeg', quality: 10 },
      ],
      format: 'jpg',
    });
    expect(parseMediaName('faces/face-cleo-fear_512x512_px12.png')).toMatchObject({
      subject: { type: 'face', person: 'cleo', emotion: 'fear' },
      steps: [{ op: 'pixelate', block: 12 }],
      format: 'png',
    });
    expect(parseMediaName('x/city_320x180_ref.jpg')).toMatchObject({ steps: [] });
  });

  it('reads trapping images: a card whose text asks for one ACR level', async () => {
    expect(parseMediaName('images/trap-bad_320x180.png')).toEqual({ kind: 'image', subject: { type: 'trap', answer: 'bad' }, width: 320, height: 180, steps: [], format: 'png' });
    expect(parseMediaName('images/trap-awful_320x180.png')).toBeNull();
    // The text is drawn: light glyph pixels on the dark card, a few percent of the image.
    const { data } = await rasterize({ type: 'trap', answer: 'bad' }, 320, 180);
    let light = 0;
    for (let i = 0; i < data.length; i += 3) if (data[i]! > 200 && data[i + 1]! > 200 && data[i + 2]! > 200) light++;
    expect(light / (320 * 180)).toBeGreaterThan(0.01);
    expect(light / (320 * 180)).toBeLessThan(0.3);
  });

  it('reads 3D object recipes: meshes with their glTF-Transform steps, point clouds with their size and steps', () => {
    expect(parseMediaName('models/knot_simp0p25_qpos11_tex5_mopt.glb')).toEqual({
      kind: 'mesh',
      content: 'knot',
      steps: [{ op: 'simplify', ratio: 0.25 }, { op: 'quantize', bits: 11 }, { op: 'texture', quality: 5 }, { op: 'meshopt' }],
    });
    expect(parseMediaName('models/shell_ref.glb')).toEqual({ kind: 'mesh', content: 'shell', steps: [] });
    expect(parseMediaName('clouds/dome_20k_dec0p5_gn0p02.ply')).toEqual({ kind: 'cloud', content: 'dome', points: 20000, steps: [{ op: 'decimate', keep: 0.5 }, { op: 'noise', sigma: 0.02 }] });
    for (const name of ['models/teapot_ref.glb', 'models/knot_qpos7.glb', 'models/knot_simp1.glb', 'clouds/dome_ref.ply', 'clouds/dome_20k_dec1.ply', 'models/knot_ref.gltf']) expect(parseMediaName(name), name).toBeNull();
  });

  it('reads video recipes with a default duration of 3 s', () => {
    expect(parseMediaName('videos/city_480x270_crf38.mp4')).toEqual({ kind: 'video', scene: 'city', width: 480, height: 270, crf: 38, seconds: 3 });
    expect(parseMediaName('videos/landscape_320x180_crf28_1s.mp4')).toMatchObject({ crf: 28, seconds: 1 });
  });

  it.each([
    'photos/IMG_0042.jpg', // a researcher's own file
    'images/landscape_640x360_q0.jpg', // quality out of range
    'images/landscape_641x360_ref.jpg', // odd size (H.264 and chroma subsampling need even sides)
    'images/mountain_640x360_ref.jpg', // unknown scene
    'faces/face-zoe-anger_512x512_ref.jpg', // unknown person
    'faces/face-ada-joy_512x512_ref.jpg', // unknown emotion
    'images/city_640x360_sharpen2.jpg', // unknown step
    'images/city_640x360_ref.webp', // unsupported format
    'videos/city_480x270.mp4', // video without a CRF
    'videos/face-ada-anger_480x270_crf20.mp4', // faces are images only
  ])('is null for %s', (name) => {
    expect(parseMediaName(name)).toBeNull();
  });
});

describe('ensureDemoMedia', () => {
  const dir = mkdtempSync(join(tmpdir(), 'glimpse-demo-media-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const levels = ['ref', 'q90', 'q40', 'q20', 'q10', 'q5'];
  const image = (step: string) => `img/still-life_320x180_${step}.jpg`;
  writeFileSync(
    join(dir, 'tiny.json'),
    JSON.stringify({
      id: 'tiny',
      media: 'media',
      job: { subjectiveProtocol: 'absolute_category_rating' },
      playlists: [
        { stimuli: [...levels.map((step) => ({ source: image(step) })), { source: 'faces/face-ben-neutral_160x200_blur3.png' }, { source: 'own/photo.jpg' }] },
      ],
    }),
  );
  const created: string[] = [];
  const run = () => ensureDemoMedia(dir, { log: (line) => created.push(line) });

  it('creates every referenced recipe file at its size, and leaves other names alone', async () => {
    await run();
    expect(created).toHaveLength(levels.length + 1);
    const face = await sharp(join(dir, 'media/faces/face-ben-neutral_160x200_blur3.png')).metadata();
    expect([face.width, face.height, face.format]).toEqual([160, 200, 'png']);
    expect(() => statSync(join(dir, 'media/own/photo.jpg'))).toThrow();
  });

  it('does nothing on a second call', async () => {
    created.length = 0;
    const before = statSync(join(dir, 'media', image('q10'))).mtimeMs;
    await run();
    expect(created).toEqual([]);
    expect(statSync(join(dir, 'media', image('q10'))).mtimeMs).toBe(before);
  });

  it('regenerates a deleted file with the same bytes', async () => {
    const path = join(dir, 'media', image('q20'));
    const original = readFileSync(path);
    rmSync(path);
    created.length = 0;
    await run();
    expect(created).toHaveLength(1);
    expect(readFileSync(path).equals(original)).toBe(true);
  });

  it('makes JPEG levels whose distortion grows as the quality drops', async () => {
    const pixels = async (step: string) => (await sharp(join(dir, 'media', image(step))).removeAlpha().raw().toBuffer());
    const reference = await pixels('ref');
    const psnr = async (step: string) => {
      const other = await pixels(step);
      let squared = 0;
      for (let i = 0; i < reference.length; i++) squared += (reference[i]! - other[i]!) ** 2;
      return 10 * Math.log10((255 * 255) / (squared / reference.length));
    };
    const values = await Promise.all(levels.slice(1).map(psnr));
    for (let i = 1; i < values.length; i++) expect(values[i], `${levels[i + 1]} vs ${levels[i]}`).toBeLessThan(values[i - 1]!);
    // The worst level is far from pristine: a participant can see it.
    expect(values.at(-1)).toBeLessThan(30);
  });
});
