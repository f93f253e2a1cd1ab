import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { videoCodecProblem } from '../../src/server/study/video-codec.js';
import { VIDEO_LIMITS, type VideoLimits } from '../../src/server/study/video-tables.js';
import { loadStudy, StudyValidationError } from '../../src/server/study/validate.js';
import { jobFields, writeStudy } from '../../testkit/studies.js';

/**
 * Videos are read at import as the stage reads them (issue 34): the lying and cut files are made here from the
 * committed frame-coded clips (30 frames, 1 to 2.5 KB), their box fields patched, so no encoder is needed.
 */
const CLIPS = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'clips');
const clip = (name: string) => readFile(join(CLIPS, name));

/** Where the first box of this type starts (its size field): by name, in a small fixture that has one. */
function boxAt(mp4: Buffer, type: string): number {
  const at = mp4.indexOf(type, 0, 'latin1') - 4;
  expect(at, type).toBeGreaterThan(0);
  return at;
}

/** The fixture with 32-bit fields of its boxes replaced: [box type, offset from the box's start, value]. */
function patched(mp4: Buffer, fields: Array<[string, number, number]>): Buffer {
  const copy = Buffer.from(mp4);
  for (const [type, offset, value] of fields) copy.writeUInt32BE(value, boxAt(copy, type) + offset);
  return copy;
}

/** An ACR video study of these files (written into its media folder); returns the study file. */
async function videoStudy(id: string, files: Record<string, Buffer>): Promise<string> {
  const file = await writeStudy({ id, job: jobFields('absolute_category_rating', { category_id: 5 }), playlists: [{ stimuli: Object.keys(files).map((source) => ({ source })) }] });
  for (const [name, bytes] of Object.entries(files)) await writeFile(join(dirname(file), 'media', name), bytes);
  return file;
}

async function messagesOf(file: string): Promise<string[]> {
  const error = await loadStudy(file).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(StudyValidationError);
  return (error as StudyValidationError).problems.map((p) => `${p.path.replace('$.playlists[0].stimuli', '')} ${p.message}`);
}

it('refuses, before the demuxer reads it, an MP4 whose sample table lists more samples than the limit or the file holds, naming the file and the bound', async () => {
  const plain = await clip('frames-30fps.mp4');
  const bframes = await clip('frames-30fps-bframes.mp4');
  // stts (version, flags, entry count, then [sample count, delta]): the first entry's sample count at +16.
  // stsz (version, flags, sample size, sample count, sizes): the count at +16.
  const file = await videoStudy('videos-tables', {
    'ok.mp4': plain,
    'ok-bframes.mp4': bframes,
    'ok.webm': await clip('frames-30fps-vp9.webm'),
    // With B-frames (a ctts box), mediabunny expands every sample's timestamp: this one took 30 s and 4 GB before it aborted.
    'stts.mp4': patched(bframes, [['stts', 16, 2 ** 31 - 1]]),
    'stsz.mp4': patched(plain, [['stsz', 16, 50_000_000]]),
    // Under the frame limit, over what 2,018 bytes can hold.
    'stts-small.mp4': patched(plain, [['stts', 16, 5000]]),
    // A sample of 100,000 bytes in a file of 2,018.
    'size.mp4': patched(plain, [['stsz', 20, 100_000]]),
    'disagree.mp4': patched(plain, [['stts', 16, 31]]),
  });
  const started = performance.now();
  const limit = '864,000 frames (an hour at 240 frames per second)';
  expect(await messagesOf(file)).toEqual([
    `[3].source video stts.mp4's stts box lists 2,147,483,647 samples, over the limit of ${limit}`,
    `[4].source video stsz.mp4's stsz box lists 50,000,000 samples, over the limit of ${limit}`,
    "[5].source video stts-small.mp4's stts box lists 5,000 samples, more than the file's 2,018 bytes (a sample holds at least one)",
    "[6].source video size.mp4's stsz box lists 100,393 bytes of samples, more than the file's 2,018",
    '[7].source video disagree.mp4 is malformed: its stts box times 31 samples, its stsz box sizes 30',
  ]);
  expect(performance.now() - started).toBeLessThan(5000);
  expect(VIDEO_LIMITS.maxFrames).toBe(3600 * 240);
});

it('refuses a video cut short as truncated, saying so: in its media, inside its movie box, or a WebM inside its Segment', async () => {
  const faststart = await clip('frames-30fps.mp4'); // ftyp, moov (32-960), free, mdat (968-2018)
  const mdatFirst = await readFile(join(CLIPS, '..', '..', 'server', 'fixtures', 'media', 'clip.mp4')); // ftyp, free, mdat (40-1282), moov
  const webm = await clip('frames-30fps-vp9.webm');
  const file = await videoStudy('videos-cut', {
    'media.mp4': faststart.subarray(0, 1513), // 75 %: inside the media
    'moov.mp4': faststart.subarray(0, 807), // 40 %: inside the movie box
    'mdat-first.mp4': mdatFirst.subarray(0, 864), // 40 %: inside the media, the movie box never reached
    'cut.webm': webm.subarray(0, 511), // 40 %
  });
  expect(await messagesOf(file)).toEqual([
    '[0].source video media.mp4 is truncated: its sample table lists 505 bytes of media past the end of the file (1,513 bytes)',
    '[1].source video moov.mp4 is truncated: its moov box declares 928 bytes, the file ends 775 bytes into it',
    '[2].source video mdat-first.mp4 is truncated: its mdat box declares 1,242 bytes, the file ends 824 bytes into it',
    '[3].source video cut.webm is truncated: its Segment declares 1,230 bytes, the file ends 463 bytes into it',
  ]);
});

/** The fixture with bytes added at the end of a box of its sample table, the boxes around it grown to match. */
function grown(mp4: Buffer, type: string, extra: Buffer): Buffer {
  const end = boxAt(mp4, type) + mp4.readUInt32BE(boxAt(mp4, type));
  const copy = Buffer.concat([mp4.subarray(0, end), extra, mp4.subarray(end)]);
  for (const box of ['moov', 'trak', 'mdia', 'minf', 'stbl', type]) copy.writeUInt32BE(copy.readUInt32BE(boxAt(copy, box)) + extra.length, boxAt(copy, box));
  return copy;
}

/** The fixture turned into `samples` one-byte samples in one chunk (stts, stsz, stsc patched), its media grown to hold them. */
function lengthened(mp4: Buffer, samples: number, more: Array<[string, number, number]> = []): Buffer {
  const media = mp4.length - boxAt(mp4, 'mdat') - 8; // the media box is last: its content grows at the end of the file
  const fields: Array<[string, number, number]> = [['stts', 16, samples], ['stsz', 12, 1], ['stsz', 16, samples], ['stsc', 20, samples], ['mdat', 0, 8 + samples], ...more];
  return Buffer.concat([patched(mp4, fields), Buffer.alloc(samples - media)]);
}

it('lists every packet as the stage does, in a worker bounded in frames, time and memory, and reads on after a stopped read', async () => {
  const plain = await clip('frames-30fps.mp4');
  const bframes = await clip('frames-30fps-bframes.mp4');
  // 200,000 samples of listed sizes in one chunk: within every bound of the table, but mediabunny sums the sizes
  // of the samples before each one in its chunk, quadratic: 58 s to list them (measured; the stage would as well).
  const sizes = Buffer.alloc(4 * (200_000 - 30));
  for (let i = 0; i < sizes.length; i += 4) sizes.writeUInt32BE(1, i);
  const crawl = grown(patched(plain, [['stsz', 16, 200_000], ['stts', 16, 200_000], ['stsc', 20, 200_000], ['stco', 16, 0]]), 'stsz', sizes);
  const media = dirname(await videoStudy('videos-read', {
    'long.mp4': lengthened(plain, 100_000),
    // With B-frames (ctts: the first entry's count at +16, 29 entries of one after it), a timestamp per sample.
    'long-bframes.mp4': lengthened(bframes, 400_000, [['ctts', 16, 400_000 - 29]]),
    'crawl.mp4': crawl,
  })) + '/media';
  const problem = (name: string, limits: Partial<VideoLimits> = {}) => videoCodecProblem(join(media, name), name, { ...VIDEO_LIMITS, ...limits });
  const small = join(CLIPS, 'frames-30fps.mp4');
  // Real tables of that length are accepted; each bound, set below what they need, refuses them.
  expect(await problem('long.mp4')).toBeNull();
  expect(await problem('long-bframes.mp4')).toBeNull();
  expect(await problem('long.mp4', { maxFrames: 50_000 })).toBe("video long.mp4's stsz box lists 100,000 samples, over the limit of 50,000 frames");
  const stage = 'over the limit (the stage reads every frame of it before the first trial)';
  expect(await videoCodecProblem(small, 'small.mp4', { ...VIDEO_LIMITS, readHeapMb: 16 })).toBeNull();
  expect(await problem('long-bframes.mp4', { readHeapMb: 16 })).toBe(`video long-bframes.mp4 took more than 16 MiB of memory to read, ${stage}`);
  const started = performance.now();
  expect(await problem('crawl.mp4', { readTimeoutMs: 1000 })).toBe(`video crawl.mp4 took more than 1 s to read, ${stage}`);
  expect(performance.now() - started).toBeLessThan(3000);
  // The stopped worker is replaced: the next read works. It counts a WebM's packets, which have no table to check first.
  const webm = join(CLIPS, 'frames-30fps-vp9.webm');
  expect(await videoCodecProblem(webm, 'frames.webm', { ...VIDEO_LIMITS, maxFrames: 29 })).toBe('video frames.webm has more than 29 frames, over the limit');
  expect(await videoCodecProblem(webm, 'frames.webm')).toBeNull();
}, 60_000);
