import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonOffLoop } from './json-off-loop.js';

let dir: string;
beforeAll(async () => void (dir = await mkdtemp(join(tmpdir(), 'json-off-loop-'))));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function fileOf(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

/** Parses off the loop, counting the turns the loop had meanwhile. */
async function parsedWithTurns(file: string): Promise<{ value: unknown; turns: number }> {
  let turns = 0;
  let parsing = true;
  const tick = () => {
    turns++;
    if (parsing) setImmediate(tick);
  };
  setImmediate(tick);
  const value = await parseJsonOffLoop(file).finally(() => (parsing = false));
  return { value, turns };
}

const stimuli = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ sourceA: `${tag}-a${i}.png`, sourceB: `${tag}-b${i}.png`, nested: { list: [i, i + 1] } }));

describe('parseJsonOffLoop', () => {
  it('gives back exactly what JSON.parse gives, a study with one playlist of 3,500 stimuli and 1,200 small playlists', async () => {
    const study = {
      id: 'big',
      job: { subjectiveProtocol: 'pair', title: 'x', empty: [], nothing: null },
      playlists: [{ stimuli: stimuli(3_500, 'one'), training: stimuli(2, 't') }, ...Array.from({ length: 1_200 }, (_, p) => ({ stimuli: stimuli(3, `p${p}`) }))],
      mediaAttributes: { 'a.png': { light: true } },
    };
    const text = JSON.stringify(study);
    const { value, turns } = await parsedWithTurns(await fileOf('study.json', text));
    expect(value).toEqual(JSON.parse(text));
    // Pieces of 1,000 items: the root, 2 of playlists, 4 of the big playlist's stimuli; the loop ran between each.
    expect(turns).toBeGreaterThanOrEqual(7);
  });

  it('keeps large arrays inside the items of a large array, and a large array at the root', async () => {
    const playlists = Array.from({ length: 1_500 }, (_, p) => ({ stimuli: stimuli(p === 700 ? 2_100 : 1, `p${p}`) }));
    const text = JSON.stringify({ playlists });
    expect(await parseJsonOffLoop(await fileOf('nested.json', text))).toEqual(JSON.parse(text));
    const rootArray = JSON.stringify(stimuli(2_500, 'root'));
    expect(await parseJsonOffLoop(await fileOf('array.json', rootArray))).toEqual(JSON.parse(rootArray));
  });

  it('gives back scalars and small values as they are', async () => {
    for (const text of ['42', '"text"', 'null', '{"a":[1,2,3],"b":{"c":[]}}', '[]']) {
      expect(await parseJsonOffLoop(await fileOf('small.json', text))).toEqual(JSON.parse(text));
    }
  });

  it("rejects a file that is not JSON with JSON.parse's own message", async () => {
    const text = '{"id": "x", "playlists": [';
    let expected = '';
    try {
      JSON.parse(text);
    } catch (error) {
      expected = (error as Error).message;
    }
    await expect(parseJsonOffLoop(await fileOf('broken.json', text))).rejects.toThrow(expected);
    await expect(parseJsonOffLoop(join(dir, 'missing.json'))).rejects.toThrow(/ENOENT/);
  });
});
