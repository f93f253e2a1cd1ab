import { createWriteStream } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { dirname, join, normalize, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { HttpError } from '../errors.js';

/**
 * A study uploaded in the console: a zip of `study.json` and its media folder, unpacked into a fresh folder with
 * the archive's own traps refused (paths leaving the folder, links, duplicate names, more files or bytes than a
 * study needs), then imported by the same code as `cli import`. Sizes are counted on the bytes actually inflated,
 * as they stream, against the upload's own limit and the disk budget all uploads share (DiskBudget): a deflate
 * bomb, or three at once, stops at the limit, whatever its headers claim.
 */

export interface UploadLimits {
  /** Largest zip accepted, bytes. */
  zipBytes: number;
  /** Largest total an archive may unpack to, bytes. */
  unpackedBytes: number;
  /** Most entries (files and folders) in an archive. */
  entries: number;
  /** Disk all uploads in progress may use together (zips and unpacked files), bytes. */
  sharedBytes: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = { zipBytes: 2 * 1024 ** 3, unpackedBytes: 4 * 1024 ** 3, entries: 50_000, sharedBytes: 8 * 1024 ** 3 };

/** One budget of disk bytes shared by every upload in progress; each upload takes as it writes and gives back at the end. */
export class DiskBudget {
  private used = 0;
  constructor(readonly total: number) {}

  /** A share of the budget for one upload: take() throws 503 when the uploads together would pass the total. */
  lease(): { take(bytes: number): void; release(): void } {
    let held = 0;
    return {
      take: (bytes) => {
        if (this.used + bytes > this.total) {
          throw new HttpError(503, 'UPLOADS_BUSY', `the uploads in progress fill the server's upload space (${this.total} bytes): try again when they are done`);
        }
        this.used += bytes;
        held += bytes;
      },
      release: () => {
        this.used -= held;
        held = 0;
      },
    };
  }
}

const bad = (message: string) => new HttpError(400, 'BAD_ZIP', message);
const tooLarge = (limit: number) => new HttpError(413, 'ZIP_TOO_LARGE', `the archive unpacks to more than ${limit} bytes`);

/** A pass-through that counts bytes as they flow and stops the stream (with the error `check` throws) past a limit. */
export function byteCounter(check: (bytes: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        check(chunk.length);
        done(null, chunk);
      } catch (error) {
        done(error as Error);
      }
    },
  });
}

export async function unpackStudyZip(zipFile: string, into: string, limits: UploadLimits, take: (bytes: number) => void): Promise<string> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(zipFile, { lazyEntries: true, autoClose: true, strictFileNames: true, validateEntrySizes: true }, (error, z) => (error ? reject(bad(`not a zip archive: ${error.message}`)) : resolve(z!))),
  );
  // The central directory's count, before anything is written.
  if (zip.entryCount > limits.entries) {
    zip.close();
    throw bad(`the archive holds ${zip.entryCount} files: at most ${limits.entries}`);
  }
  let entries = 0;
  let inflated = 0;
  const count = (bytes: number) => {
    inflated += bytes;
    if (inflated > limits.unpackedBytes) throw tooLarge(limits.unpackedBytes);
    take(bytes);
  };
  const seen = new Set<string>();
  await new Promise<void>((resolve, reject) => {
    zip.on('error', (error: Error) => reject(error instanceof HttpError ? error : bad(error.message)));
    zip.on('end', () => resolve());
    zip.on('entry', (entry: yauzl.Entry) => {
      void (async () => {
        if (++entries > limits.entries) throw bad(`the archive holds more than ${limits.entries} files`);
        const name = entry.fileName;
        const target = normalize(join(into, name));
        if (name.startsWith('/') || name.includes('\\') || !(target === into || target.startsWith(into + sep))) throw bad(`${name} would land outside the study's folder`);
        // Unix mode in the high bits: symbolic links are not followed nor made.
        if (((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000) throw bad(`${name} is a symbolic link`);
        if (name.endsWith('/')) {
          await mkdir(target, { recursive: true });
          return zip.readEntry();
        }
        if (seen.has(target)) throw bad(`the archive holds ${name} twice`);
        seen.add(target);
        // What the headers claim refuses a plain large archive at once; the counter holds whatever they claim.
        if (inflated + entry.uncompressedSize > limits.unpackedBytes) throw tooLarge(limits.unpackedBytes);
        await mkdir(dirname(target), { recursive: true });
        const stream = await new Promise<NodeJS.ReadableStream>((res, rej) => zip.openReadStream(entry, (error, s) => (error ? rej(bad(error.message)) : res(s!))));
        await pipeline(stream, byteCounter(count), createWriteStream(target, { flags: 'wx' }));
        zip.readEntry();
      })().catch((error: unknown) => {
        zip.close();
        reject(error instanceof HttpError ? error : bad(`${entry.fileName} could not be unpacked`));
      });
    });
    zip.readEntry();
  });
  return studyFileIn(into);
}

/** study.json at the archive's root, or in its only top-level folder. */
async function studyFileIn(folder: string): Promise<string> {
  const atRoot = join(folder, 'study.json');
  if (await isFile(atRoot)) return atRoot;
  const top = (await readdir(folder, { withFileTypes: true })).filter((e) => !e.name.startsWith('__MACOSX'));
  if (top.length === 1 && top[0]!.isDirectory() && (await isFile(join(folder, top[0]!.name, 'study.json')))) return join(folder, top[0]!.name, 'study.json');
  throw bad('the archive has no study.json at its root (or in its only folder)');
}

const isFile = (path: string) => stat(path).then((s) => s.isFile(), () => false);
