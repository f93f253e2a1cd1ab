/**
 * Figures of the media-loading screen (SPEC §2 screen 10, §9): integer percent, remaining time hh:mm:ss,
 * remaining size in Mo. Pure: the loader feeds byte counts and times.
 *
 * The playlist gives every file's size (mediaSizes), so the total is known before the first byte; a file whose size
 * is unknown (an older server, a missing size) counts for the average known size until its Content-Length comes.
 */

export interface FileProgress {
  /** Content-Length when the server sent one, else null until the file is finished. */
  expectedBytes: number | null;
  receivedBytes: number;
  finished: boolean;
}

export interface LoadFigures {
  total: number;
  finished: number;
  percent: number;
  /** null while no byte has arrived (no rate to extrapolate from). */
  remainingMs: number | null;
  remainingBytes: number;
}

export function loadFigures(files: FileProgress[], elapsedMs: number): LoadFigures {
  const total = files.length;
  const finished = files.filter((f) => f.finished).length;
  if (total === 0) return { total, finished, percent: 100, remainingMs: 0, remainingBytes: 0 };
  let knownBytes = 0;
  let knownCount = 0;
  let received = 0;
  for (const f of files) {
    received += f.receivedBytes;
    const size = f.finished ? f.receivedBytes : f.expectedBytes;
    if (size !== null) {
      knownBytes += size;
      knownCount += 1;
    }
  }
  const average = knownCount > 0 ? knownBytes / knownCount : 0;
  const estimatedTotal = knownBytes + average * (total - knownCount);
  const remainingBytes = finished === total ? 0 : Math.max(0, estimatedTotal - received);
  const byBytes = estimatedTotal > 0 ? received / estimatedTotal : 0;
  const percent = finished === total ? 100 : Math.min(99, Math.floor(100 * Math.max(byBytes, 0)));
  const rate = elapsedMs > 0 ? received / elapsedMs : 0;
  const remainingMs = finished === total ? 0 : rate > 0 && knownCount > 0 ? remainingBytes / rate : null;
  return { total, finished, percent, remainingMs, remainingBytes };
}

/** 'hh:mm:ss'; unknown time shows as '--:--:--'. */
export function formatHms(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '--:--:--';
  const seconds = Math.ceil(Math.max(0, ms) / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor((seconds % 3600) / 60))}:${pad(seconds % 60)}`;
}

/** Megabytes (10^6 bytes, "Mo") with one decimal. */
export function formatMo(bytes: number): string {
  return (Math.max(0, bytes) / 1_000_000).toFixed(1);
}
