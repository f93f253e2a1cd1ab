import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlaylistStimulus } from '../contract/playlist.js';
import type { StudyFile } from '../contract/study.js';
import { jobOf, planContext } from './common/levels/testSupport.js';
import { PROTOCOL_NAMES, PROTOCOLS, protocolOf } from './registry.js';
import type { ProtocolDefinition } from './types.js';

/** Every protocol is one registered definition, and every shipped study of a staged one can be planned by its module. */

describe('protocol registry', () => {
  it('lists the nine protocols, each under its own name, with its own route', () => {
    expect(PROTOCOL_NAMES).toHaveLength(9);
    for (const name of PROTOCOL_NAMES) expect(PROTOCOLS[name].name, name).toBe(name);
    expect(new Set(PROTOCOL_NAMES.map((name) => PROTOCOLS[name].route)).size).toBe(9);
    expect(protocolOf('nope')).toBeNull();
    expect(protocolOf('toString')).toBeNull();
  });

  it("each protocol's instruction images are files under public/, a 3D one for each protocol that shows objects", () => {
    for (const name of PROTOCOL_NAMES) {
      const protocol = PROTOCOLS[name] as ProtocolDefinition;
      expect(protocol.objectInstructionImage === undefined, name).toBe(protocol.objectCategories === undefined);
      for (const image of [protocol.instructionImage, protocol.objectInstructionImage]) {
        if (image === undefined) continue;
        expect(image, name).toMatch(/^\/instructions\/[a-z0-9-]+\.(svg|png)$/);
        expect(existsSync(join('public', image)), image).toBe(true);
      }
    }
  });

  it('loads the web part of each protocol', async () => {
    for (const name of PROTOCOL_NAMES) {
      const { default: web } = await PROTOCOLS[name].web();
      expect(['staged', 'interactive'], name).toContain(web.kind);
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

describe('shipped studies fit their staged protocol module', () => {
  for (const file of studyFiles) {
    const study = JSON.parse(readFileSync(file, 'utf8')) as StudyFile;
    const protocol = protocolOf(study.job.subjectiveProtocol);
    it(`${file} (${study.job.subjectiveProtocol}, categoryTest ${study.job.category_id})`, async () => {
      expect(protocol).not.toBeNull();
      const { default: module } = await protocol!.web();
      if (module.kind !== 'staged') return;
      expect(module.categories).toContain(study.job.category_id);
      const params = module.params(jobOf({ ...study.job }));
      const stimuli = study.playlists.flatMap((p) => [...p.stimuli, ...(p.training ?? [])]) as Array<Omit<PlaylistStimulus, 'stimuliId'>>;
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
