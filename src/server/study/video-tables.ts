import { open, type FileHandle } from 'node:fs/promises';
import { formatCount } from './model-limits.js';

/**
 * Limits of a video at import. The stage demuxes a clip whole before its first trial (every packet and timestamp,
 * docs/timing.md "Video, frame-exact"), with mediabunny, which expands the container's sample table into one entry per
 * sample: an MP4 whose `stts` claimed 2^31 − 1 samples was imported (only its codec was read) and took mediabunny
 * 48 s and 6.1 GB before it aborted (issue 34). So the table is checked against these and the file's size first,
 * from its boxes, before mediabunny reads it (here), then the packets are listed as the stage lists them, in a
 * worker under a time and memory bound (video-packets.ts).
 */
export const VIDEO_LIMITS = {
  /**
   * Frames (samples) of a video track: an hour at 240 frames per second. Stimuli last seconds to minutes; this
   * leaves any real clip through, while a lying table stays far from what a browser cannot hold (the stage keeps an
   * object per packet, and mediabunny a timestamp entry per sample: about 128 MiB of heap here, see readHeapMb).
   */
  maxFrames: 3600 * 240,
  /**
   * Bytes of a movie box (moov) or fragment box (moof), which the demuxer reads whole: the tables of maxFrames
   * samples (sizes, offsets, composition offsets, sync samples) take under 30 MB (9 MB as mediabunny muxes them).
   */
  maxMovieBytes: 64 * 1024 * 1024,
  /**
   * What listing the packets may take (video-packets.ts, in a worker): an hour at 240 fps with B-frames, the
   * largest table maxFrames lets through, took mediabunny 14 s on a 2-core machine; 4 times that.
   */
  readTimeoutMs: 60_000,
  /** JS heap (MiB) of that worker: the same file needed between 96 and 128 MiB; 4 times that. */
  readHeapMb: 512,
} as const;

/** The limits a check applies: VIDEO_LIMITS, or others where a test shows a bound at work on a small file. */
export type VideoLimits = { readonly [K in keyof typeof VIDEO_LIMITS]: number };

/** The frame limit, as a refusal tells it. */
export const framesSaid = (limits: VideoLimits) =>
  `${formatCount(limits.maxFrames)} frames${limits.maxFrames === VIDEO_LIMITS.maxFrames ? ' (an hour at 240 frames per second)' : ''}`;

/**
 * Why an ISO BMFF file (MP4, MOV, M4V) cannot be read as the stage reads it, from its boxes: cut short (a box or
 * a sample past the end of the file), a movie box over maxMovieBytes, or a sample table that lists more samples than
 * maxFrames (video) or the file's bytes (a sample holds at least one), tables that disagree, or more bytes of samples
 * than the file holds. A WebM or Matroska file is checked for a Segment cut short; other files pass (null).
 */
export async function containerProblem(path: string, source: string, size: number, limits: VideoLimits = VIDEO_LIMITS): Promise<string | null> {
  const file = await open(path);
  try {
    const reader = new WindowReader(file, size);
    const head = await reader.read(0, Math.min(size, 12));
    if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) return await ebmlProblem(reader, `video ${source}`, size);
    if (head.length < 8 || !ISO_TOP_BOXES.has(head.toString('latin1', 4, 8))) return null;
    return await isoProblem(reader, `video ${source}`, size, limits);
  } finally {
    await file.close();
  }
}

/** Boxes an ISO BMFF file starts with: what tells it from another container. */
const ISO_TOP_BOXES = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'styp', 'sidx', 'moof', 'pnot', 'uuid']);

/** Reads a file through a 64 KiB window: walking the boxes of a file costs a read per window, not per box. */
class WindowReader {
  private start = 0;
  private window = Buffer.alloc(0);
  constructor(
    private readonly file: FileHandle,
    readonly size: number,
  ) {}

  async read(position: number, length: number): Promise<Buffer> {
    length = Math.max(0, Math.min(length, this.size - position));
    if (length === 0) return Buffer.alloc(0);
    if (position >= this.start && position + length <= this.start + this.window.length) return this.window.subarray(position - this.start, position - this.start + length);
    const buffer = Buffer.alloc(Math.max(length, 64 * 1024));
    const { bytesRead } = await this.file.read(buffer, 0, Math.min(buffer.length, this.size - position), position);
    this.start = position;
    this.window = buffer.subarray(0, bytesRead);
    return this.window.subarray(0, length);
  }
}

interface Box {
  type: string;
  /** Where the box's content starts and ends (after its header; end = the end of its parent for size 0). */
  content: number;
  end: number;
}

/** The boxes of buf[start, end), or the name of the one that overruns it. */
function boxesIn(buf: Buffer, start: number, end: number): Box[] | string {
  const boxes: Box[] = [];
  for (let at = start; at + 8 <= end; ) {
    let size = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    let header = 8;
    if (size === 1 && at + 16 <= end) [size, header] = [Number(buf.readBigUInt64BE(at + 8)), 16];
    if (size === 0) size = end - at;
    if (size < header || at + size > end) return type;
    boxes.push({ type, content: at + header, end: at + size });
    at += size;
  }
  return boxes;
}

const child = (buf: Buffer, box: Box | undefined, type: string): Box | undefined => {
  const boxes = box ? boxesIn(buf, box.content, box.end) : [];
  return typeof boxes === 'string' ? undefined : boxes.find((b) => b.type === type);
};

/** A sample table box's entries: how many it declares, where they start in the movie box, the bytes of one. */
interface Table {
  box: string;
  count: number;
  at: number;
  entryBytes: number;
  /** Bytes the box holds for its entries. */
  room: number;
}

type Tracks = Map<number, { handler: string; samples: number }>;

async function isoProblem(reader: WindowReader, what: string, size: number, limits: VideoLimits): Promise<string | null> {
  // The top-level boxes, each to end within the file; the movie box and fragments read whole (within
  // maxMovieBytes) and checked as they come. A movie box that comes first (fast start) tells a file cut in its
  // media by its sample table, which says how much is missing, before the media box's end is reached.
  let tracks: Tracks | null = null;
  for (let at = 0; at < size; ) {
    const header = await reader.read(at, 16);
    let boxSize = header.length < 8 ? Infinity : header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    let headerSize = 8;
    if (boxSize === 1) [boxSize, headerSize] = [header.length === 16 ? Number(header.readBigUInt64BE(8)) : Infinity, 16];
    if (boxSize === 0) boxSize = size - at;
    if (boxSize < headerSize) return `${what} is malformed: its ${type} box at byte ${formatCount(at)} declares ${boxSize} bytes`;
    if (header.length < 8) return `${what} is truncated: the file ends inside a box header, at byte ${formatCount(at)}`;
    if (at + boxSize > size) return `${what} is truncated: its ${type} box declares ${formatCount(boxSize)} bytes, the file ends ${formatCount(size - at)} bytes into it`;
    if (type === 'moov' || type === 'moof') {
      if (boxSize > limits.maxMovieBytes) return `${what} has a ${type} box of ${formatCount(boxSize)} bytes, over the limit of ${formatCount(limits.maxMovieBytes)}`;
      const content = Buffer.from(await reader.read(at + headerSize, boxSize - headerSize));
      if (type === 'moov' && !tracks) {
        const found = movieProblem(content, what, size, limits);
        if (typeof found === 'string') return found;
        tracks = found;
      } else if (type === 'moof') {
        const problem = tracks ? fragmentProblem(content, tracks, what, size, limits) : `${what} is malformed: a movie fragment (moof) comes before its movie box (moov)`;
        if (problem) return problem;
      }
    }
    at += boxSize;
  }
  return tracks ? null : `${what} has no movie box (moov): the file is incomplete (a recording never finished, or cut short)`;
}

/** The movie box's tracks (id, handler, samples), each sample table checked, or why one cannot be read whole. */
function movieProblem(moov: Buffer, what: string, size: number, limits: VideoLimits): Tracks | string {
  const tracks: Tracks = new Map();
  const traks = boxesIn(moov, 0, moov.length);
  if (typeof traks === 'string') return `${what} is malformed: its ${traks} box overruns the movie box`;
  for (const trak of traks.filter((b) => b.type === 'trak')) {
    const tkhd = child(moov, trak, 'tkhd');
    const id = tkhd && tkhd.end - tkhd.content >= 24 ? moov.readUInt32BE(tkhd.content + (moov[tkhd.content] === 1 ? 20 : 12)) : 0;
    const mdia = child(moov, trak, 'mdia');
    const hdlr = child(moov, mdia, 'hdlr');
    const handler = hdlr && hdlr.end - hdlr.content >= 12 ? moov.toString('latin1', hdlr.content + 8, hdlr.content + 12) : '';
    const stbl = child(moov, child(moov, mdia, 'minf'), 'stbl');
    const problem = stbl ? sampleTableProblem(moov, stbl, what, size, handler === 'vide' ? limits : null) : 0;
    if (typeof problem === 'string') return problem;
    tracks.set(id, { handler, samples: problem });
  }
  return tracks;
}

/** Why the track's samples cannot be read whole (the message names the box and the bound), or its sample count; `video`: a video track's limits. */
function sampleTableProblem(buf: Buffer, stbl: Box, what: string, size: number, video: VideoLimits | null): string | number {
  const boxes = boxesIn(buf, stbl.content, stbl.end);
  if (typeof boxes === 'string') return `${what} is malformed: its ${boxes} box overruns its sample table`;
  const tables = new Map<string, Table>();
  for (const box of boxes) {
    // Where each table's entry count is (after version and flags, and a stsz's fixed size) and its entry size.
    const layout: Record<string, [countAt: number, entryBytes: number]> = { stts: [4, 8], ctts: [4, 8], stsc: [4, 12], stco: [4, 4], co64: [4, 8], stss: [4, 4], stsz: [8, 4], stz2: [8, 0] };
    let [countAt, entryBytes] = layout[box.type] ?? [-1, 0];
    if (countAt < 0) continue;
    if (box.end - box.content < countAt + 4) return `${what} is malformed: its ${box.type} box is ${box.end - box.content} bytes, too short for a table`;
    if (box.type === 'stsz' && buf.readUInt32BE(box.content + 4) !== 0) entryBytes = 0; // one size for every sample
    if (box.type === 'stz2') entryBytes = buf[box.content + 7]! / 8; // sizes packed in 4, 8 or 16 bits
    if (box.type === 'stz2' && ![0.5, 1, 2].includes(entryBytes)) return `${what} is malformed: its stz2 box packs sizes in ${entryBytes * 8} bits (4, 8 or 16)`;
    const at = box.content + countAt + 4;
    tables.set(box.type === 'stz2' ? 'stsz' : box.type === 'co64' ? 'stco' : box.type, { box: box.type, count: buf.readUInt32BE(at - 4), at, entryBytes, room: box.end - at });
  }
  const stts = tables.get('stts');
  const stsz = tables.get('stsz');
  const stsc = tables.get('stsc');
  const stco = tables.get('stco');
  if (!stts || !stsz || !stsc || !stco) return `${what} is malformed: a sample table lacks its ${['stts', 'stsz', 'stsc', 'stco'].find((t) => !tables.has(t))} box`;

  // The samples each table counts are bounded before anything is expanded per sample (mediabunny expands stts and
  // ctts), the sample count first: told as over the bound rather than as a table that does not fit its box.
  const bound = (table: Table, n: number) =>
    video && n > video.maxFrames
      ? `${what}'s ${table.box} box lists ${formatCount(n)} samples, over the limit of ${framesSaid(video)}`
      : n > size
        ? `${what}'s ${table.box} box lists ${formatCount(n)} samples, more than the file's ${formatCount(size)} bytes (a sample holds at least one)`
        : null;
  const sizeBound = bound(stsz, stsz.count);
  if (sizeBound) return sizeBound;
  for (const table of tables.values()) {
    if (Math.ceil(table.count * table.entryBytes) > table.room) return `${what} is malformed: its ${table.box} box lists ${formatCount(table.count)} entries in ${formatCount(table.room)} bytes`;
  }
  const timed = (table: Table) => sum(table.count, (i) => buf.readUInt32BE(table.at + 8 * i));
  for (const table of [stts, tables.get('ctts')]) {
    const problem = table && bound(table, timed(table));
    if (problem) return problem;
  }
  const count = stsz.count;
  if (timed(stts) !== count) return `${what} is malformed: its stts box times ${formatCount(timed(stts))} samples, its ${stsz.box} box sizes ${formatCount(count)}`;

  // Every sample's bytes: their sum within the file, each inside it (a file cut short lists media past its end).
  const fixed = stsz.entryBytes === 0 ? buf.readUInt32BE(stsz.at - 8) : null;
  const sampleBytes = (i: number) => fixed ?? (stsz.entryBytes === 4 ? buf.readUInt32BE(stsz.at + 4 * i) : readBits(buf, stsz.at, stsz.entryBytes * 8, i));
  const total = fixed !== null ? fixed * count : sum(count, sampleBytes);
  if (total > size) return `${what}'s ${stsz.box} box lists ${formatCount(total)} bytes of samples, more than the file's ${formatCount(size)}`;
  const chunkOffset = (k: number) => (stco.entryBytes === 8 ? Number(buf.readBigUInt64BE(stco.at + 8 * k)) : buf.readUInt32BE(stco.at + 4 * k));
  let sample = 0;
  let past = 0;
  for (let e = 0; e < stsc.count && sample < count; e++) {
    const first = buf.readUInt32BE(stsc.at + 12 * e) - 1;
    const next = e + 1 < stsc.count ? buf.readUInt32BE(stsc.at + 12 * (e + 1)) - 1 : stco.count;
    // First chunks in order (as the format requires): the chunks are walked once.
    if (first < 0 || next <= first) return `${what} is malformed: its stsc box's first chunks are not in increasing order`;
    const perChunk = buf.readUInt32BE(stsc.at + 12 * e + 4);
    for (let k = first; k < Math.min(next, stco.count) && sample < count; k++) {
      let at = chunkOffset(k);
      if (fixed !== null) {
        // Fixed-size samples (PCM audio: one per audio sample) are counted a chunk at a time.
        const n = Math.min(perChunk, count - sample);
        past += Math.max(0, at + n * fixed - Math.max(at, size));
        sample += n;
        continue;
      }
      for (let s = 0; s < perChunk && sample < count; s++, sample++) {
        const bytes = sampleBytes(sample);
        past += Math.max(0, at + bytes - Math.max(at, size));
        at += bytes;
      }
    }
  }
  if (past > 0) return `${what} is truncated: its sample table lists ${formatCount(past)} bytes of media past the end of the file (${formatCount(size)} bytes)`;
  if (sample < count) return `${what} is malformed: its chunks (stsc, stco) hold ${formatCount(sample)} of its ${formatCount(count)} samples`;
  return count;
}

/** Why a movie fragment (moof) lists more samples than a track may have, or null; adds them to their track. */
function fragmentProblem(moof: Buffer, tracks: Tracks, what: string, size: number, limits: VideoLimits): string | null {
  const trafs = boxesIn(moof, 0, moof.length);
  if (typeof trafs === 'string') return `${what} is malformed: its ${trafs} box overruns its movie fragment`;
  for (const traf of trafs.filter((b) => b.type === 'traf')) {
    const tfhd = child(moof, traf, 'tfhd');
    const track = tfhd && tfhd.end - tfhd.content >= 8 ? tracks.get(moof.readUInt32BE(tfhd.content + 4)) : undefined;
    if (!track) return `${what} is malformed: a movie fragment names no track of its movie box`;
    const boxes = boxesIn(moof, traf.content, traf.end);
    for (const trun of typeof boxes === 'string' ? [] : boxes.filter((b) => b.type === 'trun')) {
      if (trun.end - trun.content < 8) return `${what} is malformed: its trun box is too short for a table`;
      const flags = moof.readUInt32BE(trun.content) & 0xffffff;
      const count = moof.readUInt32BE(trun.content + 4);
      // Per-sample fields (duration, size, flags, composition offset: 4 bytes each) must fit in the box.
      const entryBytes = 4 * [0x100, 0x200, 0x400, 0x800].filter((bit) => flags & bit).length;
      const head = 8 + (flags & 1 ? 4 : 0) + (flags & 4 ? 4 : 0);
      if (head + count * entryBytes > trun.end - trun.content) return `${what} is malformed: its trun box lists ${formatCount(count)} samples in ${formatCount(trun.end - trun.content)} bytes`;
      track.samples += count;
    }
    if (track.handler === 'vide' && track.samples > limits.maxFrames) return `${what}'s movie fragments list ${formatCount(track.samples)} samples, over the limit of ${framesSaid(limits)}`;
    if (track.samples > size) return `${what}'s movie fragments list ${formatCount(track.samples)} samples, more than the file's ${formatCount(size)} bytes (a sample holds at least one)`;
  }
  return null;
}

/** A WebM or Matroska file cut short: its Segment (unless of unknown size, as a live recording writes it) past the end. */
async function ebmlProblem(reader: WindowReader, what: string, size: number): Promise<string | null> {
  let at = 0;
  for (const expected of [0x1a45dfa3, 0x18538067]) {
    const head = await reader.read(at, 12);
    const id = vint(head, 0, true);
    const length = id && vint(head, id.bytes, false);
    if (!id || !length || id.value !== expected) return null;
    const start = at + id.bytes + length.bytes;
    if (expected === 0x18538067 && length.value !== null && start + length.value > size) {
      return `${what} is truncated: its Segment declares ${formatCount(length.value)} bytes, the file ends ${formatCount(size - start)} bytes into it`;
    }
    if (length.value === null) return null;
    at = start + length.value;
  }
  return null;
}

/** An EBML variable-length integer: an element ID keeps its marker bit; a size of all ones is unknown (null). */
function vint(buf: Buffer, at: number, keepMarker: boolean): { value: number | null; bytes: number } | null {
  const first = buf[at];
  if (first === undefined || first === 0) return null;
  const bytes = Math.clz32(first) - 23;
  if (at + bytes > buf.length) return null;
  let value = keepMarker ? first : first & (0xff >> bytes);
  let ones = value === 0xff >> bytes;
  for (let i = 1; i < bytes; i++) {
    value = value * 256 + buf[at + i]!;
    ones &&= buf[at + i] === 0xff;
  }
  return { value: !keepMarker && ones ? null : value, bytes };
}

function sum(n: number, term: (i: number) => number): number {
  let total = 0;
  for (let i = 0; i < n; i++) total += term(i);
  return total;
}

/** The i-th `bits`-bit big-endian field from `at` (stz2 packs 4-, 8- or 16-bit sizes). */
function readBits(buf: Buffer, at: number, bits: number, i: number): number {
  if (bits === 16) return buf.readUInt16BE(at + 2 * i);
  if (bits === 8) return buf[at + i]!;
  const byte = buf[at + (i >> 1)]!;
  return i & 1 ? byte & 0x0f : byte >> 4;
}
