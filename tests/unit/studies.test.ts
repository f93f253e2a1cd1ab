/**
 * The demo studies (studies/) and the e2e studies (tests/e2e/studies/) are valid study files whose media all exist
 * once ensureDemoMedia has run, and they cover what they are there to show.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_NAMES } from '../../src/protocols/registry.js';
import { StudyFile } from '../../src/contract/study.js';
import { ensureDemoMedia, listStudyMedia, parseMediaName } from '../../scripts/demo/index.js';
import { EMOTIONS } from '../../scripts/demo/scenes/faces.js';
import { loadStudy } from '../../src/server/study/validate.js';

const DEMO_DIR = resolve('studies');
const E2E_DIR = resolve('tests/e2e/studies');

function readStudies(dir: string): Array<{ file: string; study: StudyFile }> {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({ file: join(dir, name), study: JSON.parse(readFileSync(join(dir, name), 'utf8')) as StudyFile }));
}

const demo = readStudies(DEMO_DIR);
const e2e = readStudies(E2E_DIR);

beforeAll(async () => {
  await ensureDemoMedia(DEMO_DIR);
  await ensureDemoMedia(E2E_DIR);
}, 180_000);

describe.each([
  ['demo', DEMO_DIR, demo],
  ['e2e', E2E_DIR, e2e],
] as const)('%s studies', (_set, dir, studies) => {
  it.each(studies.map((s) => [basename(s.file), s] as const))('%s matches the contract schema and imports', async (_name, { file, study }) => {
    const errors = [...Value.Errors(StudyFile, study)].map((e) => `${e.path}: ${e.message}`);
    expect(errors).toEqual([]);
    expect(study.id).toBe(basename(file, '.json'));
    // The importer's own checks: stimulus shape of the protocol, every media file present in the media folder.
    const loaded = await loadStudy(file);
    expect(loaded.study.id).toBe(study.id);
  });

  it('has unique job ids', () => {
    const ids = studies.map((s) => s.study.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('references only demo media that exist and have the size their name says', async () => {
    for (const { files } of await listStudyMedia(dir)) {
      for (const path of files) {
        // The e2e 3D fixtures are committed files (npm run media:3d-fixtures), not made from their names.
        if (path.includes('/media/objects/')) {
          expect(readFileSync(path).length, path).toBeGreaterThan(0);
          continue;
        }
        const recipe = parseMediaName(path);
        expect(recipe, `${path} is a demo recipe name`).not.toBeNull();
        if (recipe!.kind === 'image') {
          const meta = await sharp(path).metadata();
          expect([meta.width, meta.height, meta.format], path).toEqual([recipe!.width, recipe!.height, recipe!.format === 'jpg' ? 'jpeg' : 'png']);
        } else if (recipe!.kind === 'mesh' || recipe!.kind === 'cloud') {
          // Read and checked by the importer (the test above); a glTF binary or a PLY by its magic.
          expect(readFileSync(path).subarray(0, 4).toString('latin1'), path).toBe(recipe!.kind === 'mesh' ? 'glTF' : 'ply\n');
        } else {
          // An MP4 starts with an ftyp box; faststart puts the moov box right after it.
          const head = readFileSync(path).subarray(0, 64).toString('latin1');
          expect(head.slice(4, 8), path).toBe('ftyp');
          expect(head.includes('moov'), `${path} is faststart`).toBe(true);
        }
      }
    }
  });

  it('every piiface training type carries the shown emotion as its fourth segment', () => {
    for (const { study } of studies.filter((s) => s.study.job.subjectiveProtocol === 'piiface')) {
      for (const playlist of study.playlists) {
        const all = [...(playlist.training ?? []), ...playlist.stimuli] as Array<{ type: string; source: string }>;
        for (const stimulus of all) {
          const index = Number(stimulus.type.split('/')[3]);
          const emotion = /face-[a-z]+-([a-z]+)_/.exec(stimulus.source)?.[1];
          expect(EMOTIONS[index], stimulus.type).toBe(emotion);
        }
      }
    }
  });
});

describe('demo studies', () => {
  it('cover every protocol route, and pair comparison in each layout 1-4', () => {
    expect(new Set(demo.map((s) => s.study.job.subjectiveProtocol))).toEqual(new Set(PROTOCOL_NAMES));
    const pvidLayouts = demo.filter((s) => s.study.job.subjectiveProtocol === 'pair_comparison').map((s) => s.study.job.category_id);
    expect(new Set(pvidLayouts)).toEqual(new Set([1, 2, 3, 4]));
  });

  it('have 2-3 playlists of 4-8 stimuli each, so playlist balancing is visible (an adaptive design: 4-8 comparisons made at arrival)', () => {
    for (const { study } of demo) {
      if (study.design?.mode === 'asap') {
        expect(study.playlists, study.id).toHaveLength(1);
        expect(study.design.comparisonsPerParticipant, study.id).toBeGreaterThanOrEqual(4);
        expect(study.design.comparisonsPerParticipant, study.id).toBeLessThanOrEqual(8);
        continue;
      }
      expect(study.playlists.length, study.id).toBeGreaterThanOrEqual(2);
      expect(study.playlists.length, study.id).toBeLessThanOrEqual(3);
      for (const playlist of study.playlists) {
        expect(playlist.stimuli.length, study.id).toBeGreaterThanOrEqual(4);
        expect(playlist.stimuli.length, study.id).toBeLessThanOrEqual(8);
      }
    }
  });

  it('accept a common desktop screen and do not force fullscreen', () => {
    for (const { study } of demo) {
      const job = study.job;
      expect(job.requestFullScreen, study.id).toBe(0);
      for (const [height, width] of [[768, 1366], [1080, 1920], [1440, 2560]]) {
        expect(height >= job.targetScreenSizeHeight && width >= job.targetScreenSizeWidth, `${study.id} min at ${width}x${height}`).toBe(true);
        expect(height <= job.maxScreenSizeHeight && width <= job.maxScreenSizeWidth, `${study.id} max at ${width}x${height}`).toBe(true);
      }
    }
  });

  it('give DSIS training examples a reference score on the 5-grade impairment scale', () => {
    const dsis = demo.filter((s) => s.study.job.subjectiveProtocol === 'double_stimulus_impairment_scale');
    expect(dsis.length).toBeGreaterThan(0);
    for (const { study } of dsis) {
      for (const playlist of study.playlists) {
        expect(playlist.training?.length ?? 0).toBeGreaterThan(0);
        for (const example of playlist.training as Array<{ value?: number }>) expect([1, 2, 3, 4, 5]).toContain(example.value);
      }
    }
  });
});

describe('e2e studies', () => {
  // The quality journey rebalances (two playlists) and needs 4 rated stimuli and a trap: the variance rule judges a
  // session from its 4th rating (varianceAfterRatings).
  it('are tiny: one playlist of at most 3 stimuli (the quality journey: two of at most 5), no fullscreen', () => {
    for (const { study } of e2e) {
      const quality = study.id.startsWith('quality-');
      expect(study.playlists.length, study.id).toBe(quality ? 2 : 1);
      for (const playlist of study.playlists) expect(playlist.stimuli.length, study.id).toBeLessThanOrEqual(quality ? 5 : 3);
      expect(study.job.requestFullScreen, study.id).toBe(0);
    }
  });

  // e2e-* are the per-protocol journeys; other files (web-*) may test edge cases such as a too-small screen.
  it('include an e2e-* study per protocol that headless Chromium at 1280x720 passes', () => {
    const journeys = e2e.filter((s) => s.study.id.startsWith('e2e-'));
    expect(new Set(journeys.map((s) => s.study.job.subjectiveProtocol))).toEqual(new Set(PROTOCOL_NAMES));
    for (const { study } of journeys) {
      const job = study.job;
      expect(720 >= job.targetScreenSizeHeight && 1280 >= job.targetScreenSizeWidth, study.id).toBe(true);
      expect(720 <= job.maxScreenSizeHeight && 1280 <= job.maxScreenSizeWidth, study.id).toBe(true);
    }
  });
});
