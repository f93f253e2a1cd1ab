import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Storage } from '../../src/server/storage/types.js';
import { importStudy } from '../../src/server/study/import.js';

/** Writes each study file into `studyDir` (beside its media folder) and imports it, as `cli import` would. */
export async function importBenchStudies(storage: Storage, studyDir: string, mediaDir: string, studies: ReadonlyArray<{ id: string }>): Promise<void> {
  for (const study of studies) {
    const file = join(studyDir, `${study.id}.json`);
    await writeFile(file, JSON.stringify(study));
    await importStudy(storage, file, mediaDir);
  }
}
