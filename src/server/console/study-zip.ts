import { createWriteStream } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { dirname, join, normalize, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { HttpError } from '../errors.js';

/**
 * A study uploaded in the console: a zip of `study.json` and its media folder, unpacked into a fresh folder with
 * the archive's own traps refused (paths leaving the folder, links, more files or bytes than a study needs), then
 * imported by the same code as `cli import`.
 */

export const ZIP_LIMITS = { entries: 50_000, bytes: 4 * 1024 ** 3 };

const bad = (message: string) => new HttpError(400, 'BAD_ZIP', message);

export async function unpackStudyZip(zipFile: string, into: string): Promise<string> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(zipFile, { lazyEntries: true, autoClose: true, strictFileNames: true, validateEntrySizes: true }, (error, z) => (error ? reject(bad(`not a zip archive: ${error.message}`)) : resolve(z!))),
  );
  let entries = 0;
  let bytes = 0;
  await new Promise<void>((resolve, reject) => {
    zip.on('error', (error: Error) => reject(error instanceof HttpError ? error : bad(error.message)));
    zip.on('end', () => resolve());
    zip.on('entry', (entry: yauzl.Entry) => {
      void (async () => {
        if (++entries > ZIP_LIMITS.entries) throw bad(`the archive holds more than ${ZIP_LIMITS.entries} files`);
        const name = entry.fileName;
        const target = normalize(join(into, name));
        if (name.startsWith('/') || name.includes('\\') || !(target === into || target.startsWith(into + sep))) throw bad(`${name} would land outside the study's folder`);
        // Unix mode in the high bits: symbolic links are not followed nor made.
        if (((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000) throw bad(`${name} is a symbolic link`);
        if (name.endsWith('/')) {
          await mkdir(target, { recursive: true });
          return zip.readEntry();
        }
        bytes += entry.uncompressedSize;
        if (bytes > ZIP_LIMITS.bytes) throw bad(`the archive unpacks to more than ${ZIP_LIMITS.bytes} bytes`);
        await mkdir(dirname(target), { recursive: true });
        const stream = await new Promise<NodeJS.ReadableStream>((res, rej) => zip.openReadStream(entry, (error, s) => (error ? rej(bad(error.message)) : res(s!))));
        await pipeline(stream, createWriteStream(target, { flags: 'wx' }));
        zip.readEntry();
      })().catch((error: unknown) => {
        zip.close();
        reject(error instanceof HttpError ? error : bad((error as Error).message));
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
