import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlaylistStimulus } from '../../contract/playlist.js';
import { RATING_PROTOCOLS, type RatingProtocol } from '../../contract/protocols.js';
import type { StudyFile } from '../../contract/study.js';
import { jobOf, planContext } from './levels/testSupport.js';
import { moduleOf } from './registry.js';

/** Every rating protocol is a registered module, and every shipped study of it can be planned by that module. */

describe('protocol registry', () => {
  it('has a module for each of the seven rating protocols, under its own name', () => {
    for (const protocol of RATING_PROTOCOLS) expect(moduleOf(protocol)?.name, protocol).toBe(protocol);
  });

  it("each protocol's instruction image is a file under public/", () => {
    for (const protocol of RATING_PROTOCOLS) {
      const image = moduleOf(protocol)!.instructionImage;
      expect(image, protocol).toMatch(/^\/instructions\/[a-z-]+\.(svg|png)$/);
      expect(existsSync(join('public', image!)), image).toBe(true);
    }
  });
});

/** The demo studies and the main e2e study of each protocol (other e2e studies may be broken on purpose). */
const studyFiles = [
  ...readdirSync('studies').map((f) => join('studies', f)),
  ...readdirSync('tests/e2e/studies')
    .filter((f) => f.startsWith('e2e-'))
    .map((f) => join('tests/e2e/studies', f)),
].filter((f) => f.endsWith('.json'));

describe('shipped studies fit their protocol module', () => {
  for (const file of studyFiles) {
    const study = JSON.parse(readFileSync(file, 'utf8')) as StudyFile;
    const protocol = study.job.subjectiveProtocol;
    if (!(RATING_PROTOCOLS as readonly string[]).includes(protocol)) continue;
    it(`${file} (${protocol}, categoryTest ${study.job.category_id})`, () => {
      const module = moduleOf(protocol as RatingProtocol)!;
      expect(module.categories).toContain(study.job.category_id);
      const params = module.params(jobOf({ ...study.job }));
      const stimuli = study.playlists.flatMap((p) => [...p.stimuli, ...(p.training ?? [])]) as Omit<PlaylistStimulus, 'stimuliId'>[];
      expect(stimuli.length).toBeGreaterThan(0);
      stimuli.forEach((s, i) => {
        const stimulus: PlaylistStimulus = { ...s, reversed: s.reversed ?? false, stimuliId: i };
        const media = module.mediaOf(stimulus, params);
        const steps = module.plan(stimulus, planContext(params));
        // Every media the stage is asked to prepare is drawn, and every drawn media was prepared.
        expect(new Set(steps.flatMap((step) => step.items.map((item) => item.media)))).toEqual(new Set(media));
      });
    });
  }
});
