import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { jobFields, sampleStimulus, writeStudy } from '../../../testkit/studies.js';
import { loadStudyOffLoop } from './study-off-loop.js';
import { loadStudy, StudyValidationError, type LoadedStudy } from './validate.js';

const comparable = (loaded: LoadedStudy) => ({ ...loaded, protocol: loaded.protocol.name, models: [...loaded.models] });

const refusalOf = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error);

describe('loadStudyOffLoop (a console upload, loaded and checked in a worker)', () => {
  it('gives what loadStudy gives: a study of one playlist of 3,500 stimuli, its training, and 900 small playlists, the id first', async () => {
    const pair = (n: number, tag: number) => Array.from({ length: n }, (_, i) => sampleStimulus('pair_comparison', i + tag));
    const file = await writeStudy({
      id: 'off-loop',
      job: jobFields('pair_comparison'),
      playlists: [{ stimuli: pair(3_500, 0), training: pair(2, 1) }, ...Array.from({ length: 900 }, (_, p) => ({ stimuli: pair(3, p) }))],
    });
    const run = loadStudyOffLoop(file);
    expect(await run.id).toBe('off-loop');
    const loaded = await run.loaded;
    expect(comparable(loaded)).toEqual(comparable(await loadStudy(file)));
    expect(loaded.study.playlists[0]!.stimuli).toHaveLength(3_500);
    // Pieces of 1,000 items, each received in its own turn: the root, then 4 of the long playlist's stimuli.
    expect(run.pieces).toBe(5);
  });

  it('refuses a study with problems as loadStudy does, every problem and its count', async () => {
    const stimuli = Array.from({ length: 150 }, (_, i) => (i % 2 ? { sourceA: 'missing.png', sourceB: 'red.png' } : { sourceA: 'red.png' }));
    const file = await writeStudy({ id: 'bad', job: jobFields('pair_comparison'), playlists: [{ stimuli }] });
    const inProcess = await refusalOf(loadStudy(file));
    const offLoop = await refusalOf(loadStudyOffLoop(file).loaded);
    expect(offLoop).toBeInstanceOf(StudyValidationError);
    const facts = (e: unknown) => ({ file: (e as StudyValidationError).file, problems: (e as StudyValidationError).problems, more: (e as StudyValidationError).more, checkedAll: (e as StudyValidationError).checkedAll, message: (e as Error).message });
    expect(facts(offLoop)).toEqual(facts(inProcess));
    expect((offLoop as StudyValidationError).problems.length).toBeGreaterThan(50);
  });

  it('refuses a file that is not JSON with the same message, and has no id', async () => {
    const file = await writeStudy({ id: 'x', job: jobFields('pair_comparison'), playlists: [] });
    await writeFile(file, '{"id": "x", "playlists": [');
    const run = loadStudyOffLoop(file);
    expect(await run.id).toBeNull();
    expect(((await refusalOf(run.loaded)) as Error).message).toBe(((await refusalOf(loadStudy(file))) as Error).message);
  });

  it('stops when cancelled (an uploader who may not import the study)', async () => {
    const file = await writeStudy({ id: 'cancelled', job: jobFields('pair_comparison'), playlists: [{ stimuli: [sampleStimulus('pair_comparison')] }] });
    const run = loadStudyOffLoop(file);
    expect(await run.id).toBe('cancelled');
    run.cancel();
    expect(((await refusalOf(run.loaded)) as Error).message).toBe('the study reader stopped');
  });
});
