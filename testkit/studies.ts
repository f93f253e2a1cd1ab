import { mkdtempSync } from 'node:fs';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import type { Protocol } from '../src/protocols/registry.js';
export { jobFields } from './job-fields.js';
import { jobFields } from './job-fields.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'tests', 'server', 'fixtures');
export const FIXTURE_MEDIA = join(FIXTURES, 'media');
export const PAIR_STUDY = join(FIXTURES, 'pair-study.json');

const bubbleSide = (source: string) => ({ source, height: 18, width: 32, blur: 4, radius: 6 });

/** A valid stimulus of each protocol's shape, using the fixture media. */
export function sampleStimulus(protocol: Protocol, i = 0): Record<string, unknown> {
  const files = ['red.png', 'green.png', 'blue.png', 'yellow.png'];
  const f = (k: number) => files[(i + k) % files.length];
  switch (protocol) {
    case 'absolute_category_rating':
    case 'acceptability_annoyance':
      return { source: f(0) };
    case 'triplet':
      return { sourceA: f(0), sourceB: f(1), sourceC: f(2) };
    case 'maximum_likelihood_difference_scaling':
      return { sourceA: f(0), sourceB: f(1), sourceC: f(2), sourceD: f(3) };
    case 'bubble':
      return { sourceA: bubbleSide(f(0)), sourceB: { ...bubbleSide(f(1)), golden: true } };
    case 'piiface':
      return { type: `emotion/set1/img${i}/3`, source: f(0) };
    default:
      return { sourceA: f(0), sourceB: f(1) };
  }
}

/** Study files written by a test file live under one folder, removed after that file's tests. */
const STUDIES_ROOT = mkdtempSync(join(tmpdir(), 'glimpse-test-studies-'));
afterAll(() => rm(STUDIES_ROOT, { recursive: true, force: true }));

/**
 * Writes a study file into a fresh temp folder and returns its path. Its media folder is a copy of the fixture
 * media, or of the folder `study.media` names by an absolute path (the importer takes media from inside the study's
 * folder only). `keepMedia`: write `study.media` as given (tests of the importer's refusals).
 */
export async function writeStudy(study: Record<string, unknown>, opts: { keepMedia?: boolean } = {}): Promise<string> {
  const dir = await mkdtemp(join(STUDIES_ROOT, 'study-'));
  const file = join(dir, 'study.json');
  if (opts.keepMedia) {
    await writeFile(file, JSON.stringify(study, null, 2));
    return file;
  }
  const source = typeof study.media === 'string' && isAbsolute(study.media) ? study.media : FIXTURE_MEDIA;
  if (typeof study.media !== 'string' || isAbsolute(study.media)) await cp(source, join(dir, 'media'), { recursive: true, preserveTimestamps: true });
  await writeFile(file, JSON.stringify({ ...study, media: typeof study.media === 'string' && !isAbsolute(study.media) ? study.media : 'media' }, null, 2));
  return file;
}

/** A valid study of a protocol: `playlists` playlists of `perPlaylist` stimuli (+ optional training). */
export function studyOf(protocol: Protocol, opts: { id?: string; playlists?: number; perPlaylist?: number; training?: number } = {}) {
  const { playlists = 2, perPlaylist = 3, training = 0 } = opts;
  return {
    id: opts.id ?? `study-${protocol.replace(/_/g, '-')}`,
    job: jobFields(protocol),
    playlists: Array.from({ length: playlists }, (_, p) => ({
      stimuli: Array.from({ length: perPlaylist }, (_, i) => sampleStimulus(protocol, p + i)),
      ...(training ? { training: Array.from({ length: training }, (_, i) => sampleStimulus(protocol, i)) } : {}),
    })),
  };
}
