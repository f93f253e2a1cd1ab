import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { protocolOf } from '../../src/protocols/registry.js';

/** Every media file a study file references, as absolute paths (its `media` folder joined with each source). */
export interface StudyMediaList {
  studyFile: string;
  mediaDir: string;
  files: string[];
}

type Json = Record<string, unknown>;

/**
 * The media referenced by each `*.json` study in `studiesDir`. Files that are not shaped like a study (no known
 * protocol, `media` or `playlists`) are skipped: validating studies is the importer's job (study/validate.ts),
 * this only finds what to generate.
 */
export async function listStudyMedia(studiesDir: string): Promise<StudyMediaList[]> {
  const names = (await readdir(studiesDir)).filter((name) => name.endsWith('.json')).sort();
  const lists: StudyMediaList[] = [];
  for (const name of names) {
    const studyFile = resolve(studiesDir, name);
    let study: Json;
    try {
      study = JSON.parse(await readFile(studyFile, 'utf8')) as Json;
    } catch {
      continue;
    }
    const protocolName = (study.job as Json | undefined)?.subjectiveProtocol;
    const protocol = typeof protocolName === 'string' ? protocolOf(protocolName) : null;
    if (!protocol || typeof study.media !== 'string' || !Array.isArray(study.playlists)) continue;
    const mediaDir = resolve(dirname(studyFile), study.media);
    const files = new Set<string>();
    for (const playlist of study.playlists as Json[]) {
      const stimuli = [...asArray(playlist?.stimuli), ...asArray(playlist?.training)];
      for (const stimulus of stimuli) {
        // A malformed stimulus (e.g. a null bubble side) is the importer's to report; skip it here.
        const sources = (() => {
          try {
            return protocol.stimulus.media(stimulus);
          } catch {
            return [];
          }
        })();
        for (const [, source] of sources) if (typeof source === 'string') files.add(join(mediaDir, source));
      }
    }
    // An adaptive design's conditions (docs/adaptive.md): media its participants' playlists will name.
    for (const content of asArray((study.design as Json | undefined)?.contents)) {
      for (const source of Array.isArray(content.conditions) ? content.conditions : []) if (typeof source === 'string') files.add(join(mediaDir, source));
    }
    lists.push({ studyFile, mediaDir, files: [...files].sort() });
  }
  return lists;
}

function asArray(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter((item): item is Json => !!item && typeof item === 'object') : [];
}
