import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_NAMES, protocolOf } from '../protocols/registry.js';
import { CsvError } from './csv.js';
import { familyOfProtocol, KNOWN_PROTOCOLS, ratingScaleOf, readVotesCsv } from './votes-csv.js';

const dir = mkdtempSync(join(tmpdir(), 'glimpse-votes-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function read(path: string, protocol: string) {
  const csv = await readVotesCsv(path, protocol);
  const votes: unknown[] = [];
  for await (const v of csv) votes.push(v);
  return { csv, votes };
}

describe('votes CSV', () => {
  it('maps protocols to families', () => {
    expect(familyOfProtocol('absolute_category_rating')).toBe('rating');
    expect(familyOfProtocol('acceptability_annoyance')).toBe('rating');
    expect(familyOfProtocol('mlds_pair')).toBe('paired');
    expect(familyOfProtocol('maximum_likelihood_difference_scaling')).toBe('mlds');
    expect(familyOfProtocol('triplet')).toBe('triplet');
    expect(familyOfProtocol('toString')).toBeNull();
  });

  // The analysis keeps its own table (protocol-families.ts) so that it loads no protocol module: it must say what
  // the definitions say.
  it('knows every protocol of the registry, with the family and rating scale its definition gives', () => {
    expect(KNOWN_PROTOCOLS, 'src/analysis/protocol-families.ts lists the protocols of src/protocols/registry.ts, in its order').toEqual(PROTOCOL_NAMES);
    for (const name of PROTOCOL_NAMES) {
      const definition = protocolOf(name)!;
      const adapter = definition.analysis;
      expect(familyOfProtocol(name), name).toBe(adapter.family);
      // The adapters only read which media is rated from the spec; the score depends on the value alone.
      const spec = { source: 'x', sourceA: 'x', sourceB: 'x' };
      const scale =
        adapter.family === 'rating'
          ? definition.answers.ratingValues.map((value) => adapter.vote({ stimulusId: 0, spec, value, attributes: () => ({}) }).score).sort((a, b) => a - b)
          : null;
      expect(ratingScaleOf(name), name).toEqual(scale);
    }
  });

  it('reads ratings with optional columns, ignores extra ones and skips missing answers', async () => {
    const path = file('r.csv', 'extra,observer,stimulus,score,content,reference,flagged\r\nx,o1,"a,1",5,c,1,\r\nx,o1,b,,c,0,\r\nx,o2,b,3,c,0,true\r\n');
    const { csv, votes } = await read(path, 'absolute_category_rating');
    expect(votes).toEqual([
      { observer: 'o1', stimulus: 'a,1', score: 5, condition: null, content: 'c', isReference: true, flagged: false },
      { observer: 'o2', stimulus: 'b', score: 3, condition: null, content: 'c', isReference: false, flagged: true },
    ]);
    expect(csv).toMatchObject({ rows: 3, skipped: 1 });
  });

  it('reads paired, quadruple, triad, piiface and bubble rows', async () => {
    expect((await read(file('p.csv', 'observer,a,b,winner\no,x,y,y\n'), 'pair_comparison')).votes).toEqual([{ observer: 'o', a: 'x', b: 'y', winner: 'y', scene: null, flagged: false }]);
    expect((await read(file('ps.csv', 'observer,scene,a,b,winner\no,s1,x,y,y\n'), 'pair_comparison')).votes[0]).toMatchObject({ scene: 's1' });
    expect((await read(file('pc.csv', 'observer,content,a,b,winner\no,c1,x,y,y\n'), 'pair_comparison')).votes[0]).toMatchObject({ scene: 'c1' });
    expect((await read(file('q.csv', 'observer,s1,s2,s3,s4,response\no,1,2,3,4.5,1\n'), 'maximum_likelihood_difference_scaling')).votes).toEqual([
      { observer: 'o', s1: 1, s2: 2, s3: 3, s4: 4.5, response: 1, flagged: false },
    ]);
    expect((await read(file('t.csv', 'observer,s1,s2,s3,response\no,1,2,3,0\n'), 'triplet')).votes).toEqual([{ observer: 'o', s1: 1, s2: 2, s3: 3, response: 0, flagged: false }]);
    expect((await read(file('f.csv', 'observer,stimulus,expected_emotion,answer\no,f,,42\n'), 'piiface')).votes).toEqual([
      { observer: 'o', stimulus: 'f', expectedEmotion: null, answer: 42, flagged: false },
    ]);
    const bubble = await read(file('b.csv', 'observer,stimulus,media,width,height,radius,samples\no,s,a,10,10,2,"[[1,2,0],{""x"":3,""y"":4,""t"":16}]"\n'), 'bubble');
    expect(bubble.votes[0]).toMatchObject({ media: 'A', samples: [{ x: 1, y: 2, t: 0 }, { x: 3, y: 4, t: 16 }] });
  });

  it('stops with the row number on malformed values, and names missing columns', async () => {
    await expect(read(file('e1.csv', 'observer,a,b,winner\no,x,y,z\n'), 'pair_comparison')).rejects.toThrow(new CsvError('row 2: winner "z" is neither a ("x") nor b ("y")'));
    await expect(read(file('e2.csv', 'observer,s1,s2,s3,response\no,1,2,3,2\n'), 'triplet')).rejects.toThrow(/row 2: response "2" is not 0 or 1/);
    await expect(read(file('e3.csv', 'observer,stimulus,score\no,s,good\n'), 'absolute_category_rating')).rejects.toThrow(/score "good" is not a number/);
    await expect(readVotesCsv(file('e4.csv', 'observer,stimulus\n'), 'absolute_category_rating')).rejects.toThrow(/missing column score/);
    await expect(readVotesCsv(file('e5.csv', 'observer\n'), 'nope')).rejects.toThrow(/unknown protocol "nope"/);
  });

  it('refuses a row with an extra or a missing field, with its row number', async () => {
    // "o1,b,4,5" used to be read as a 4.
    await expect(read(file('x1.csv', 'observer,stimulus,score\no1,a,3\no1,b,4,5\n'), 'absolute_category_rating')).rejects.toThrow(
      new CsvError('row 3: 4 fields where the header has 3 (an extra field; quote values that contain commas)'),
    );
    await expect(read(file('x2.csv', 'observer,a,b,winner\no,x,y\n'), 'pair_comparison')).rejects.toThrow(/^row 2: 3 fields where the header has 4 \(a missing field/);
  });

  it('refuses scores outside the protocol scale, with the row number', async () => {
    expect(ratingScaleOf('absolute_category_rating')).toEqual([1, 2, 3, 4, 5]);
    expect(ratingScaleOf('double_stimulus_impairment_scale')).toEqual([1, 2, 3, 4, 5]);
    expect(ratingScaleOf('acceptability_annoyance')).toEqual([0, 1, 2]);
    expect(ratingScaleOf('pair_comparison')).toBeNull();
    const acr = 'observer,stimulus,score\no1,a,5\no1,b,1\n';
    expect((await read(file('s0.csv', acr), 'absolute_category_rating')).votes).toHaveLength(2);
    await expect(read(file('s1.csv', `${acr}o1,c,-3\n`), 'absolute_category_rating')).rejects.toThrow(
      new CsvError('row 4: score "-3" is not on the absolute_category_rating scale (1, 2, 3, 4, 5)'),
    );
    await expect(read(file('s2.csv', `${acr}o2,c,12\n`), 'absolute_category_rating')).rejects.toThrow(/^row 4: score "12" is not on/);
    await expect(read(file('s3.csv', `${acr}o2,c,3.5\n`), 'absolute_category_rating')).rejects.toThrow(/^row 4: score "3.5" is not on/);
    await expect(read(file('s4.csv', 'observer,stimulus,score\no1,a,3\n'), 'acceptability_annoyance')).rejects.toThrow(
      /^row 2: score "3" is not on the acceptability_annoyance scale \(0, 1, 2\)/,
    );
  });
});
