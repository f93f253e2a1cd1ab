import { createHash } from 'node:crypto';
import { createRandom } from '../../analysis/random.js';
import type { StimulusCheck } from '../../contract/quality.js';
import type { StudyFile } from '../../contract/study.js';

const placedAtRandom = (stimulus: unknown) => (stimulus as { check?: StimulusCheck } | null)?.check?.position === 'random';

/**
 * Moves every check stimulus declared with `position: "random"` to a random place among its playlist's test
 * stimuli. The places are drawn from a generator seeded by the study id and the playlist's index, so importing the
 * same file again gives the same playlists (and a re-import is 'unchanged'); a new study id draws new places.
 * The stimuli keep their `check`, `position: "random"` included, so the export shows how each one was placed.
 */
export function placeRandomChecks(study: StudyFile): StudyFile {
  if (!study.playlists.some((p) => p.stimuli.some(placedAtRandom))) return study;
  return {
    ...study,
    playlists: study.playlists.map((playlist, index) => {
      const moving = playlist.stimuli.filter(placedAtRandom);
      if (moving.length === 0) return playlist;
      const random = createRandom(createHash('sha256').update(`${study.id}\0${index}`).digest().readUInt32BE(0));
      const stimuli = playlist.stimuli.filter((s) => !placedAtRandom(s));
      for (const check of moving) stimuli.splice(random.int(stimuli.length + 1), 0, check);
      return { ...playlist, stimuli };
    }),
  };
}
