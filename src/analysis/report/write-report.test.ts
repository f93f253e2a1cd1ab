import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analyse, type AnalysisInput } from '../analyse.js';
import { csvRecords } from '../csv.js';
import type { Report } from '../report-types.js';
import { fixtureVotes } from '../test-support.js';
import type { BubbleScreening, PairedVote, RatingVote } from '../types.js';
import { csvCell, writeReport } from './write-report.js';
import { reportTables } from './tables.js';

const EVIL = '<script>alert("x")</script>&"quoted, comma"';
const options = { seed: 7, resamples: 20, generatedAt: new Date('2024-06-01T12:00:00Z') };

async function tinyPng(): Promise<Uint8Array> {
  return new Uint8Array(await sharp({ create: { width: 8, height: 6, channels: 3, background: { r: 200, g: 120, b: 40 } } }).png().toBuffer());
}

async function inputs(): Promise<AnalysisInput[]> {
  const rating: RatingVote[] = [];
  ['o1', 'o2', 'o3', 'o4'].forEach((o, i) =>
    [EVIL, 'b', 'c'].forEach((s, j) => rating.push({ observer: o, stimulus: s, score: 1 + ((i + 2 * j) % 5), condition: j < 2 ? 'c1' : 'c2', content: 'x', isReference: j === 0 })),
  );
  const paired: PairedVote[] = [];
  ['o1', 'o2', 'o3'].forEach((o, i) => {
    paired.push({ observer: o, a: EVIL, b: 'b', winner: i < 2 ? EVIL : 'b' });
    paired.push({ observer: o, a: 'b', b: 'c', winner: 'b' });
    paired.push({ observer: o, a: 'c', b: EVIL, winner: i === 0 ? 'c' : EVIL });
  });
  const samples = Array.from({ length: 30 }, (_, k) => ({ x: 40 + (k % 5), y: 20 + (k % 3), t: k * 16 }));
  const bubble: BubbleScreening[] = [
    { observer: 'o1', stimulus: EVIL, media: 'A', width: 80, height: 60, radius: 6, samples, rating: 4, expectedEmotion: 3 },
    { observer: 'o2', stimulus: EVIL, media: 'B', width: 80, height: 60, radius: 6, samples, rating: 2, expectedEmotion: 3 },
  ];
  const png = await tinyPng();
  return [
    {
      family: 'rating',
      protocol: 'absolute_category_rating',
      votes: rating,
      source: EVIL,
      timing: [{ observer: 'o1', trial: EVIL, presentations: [{ label: 'target', requestedFrames: 6, shownFrames: 7, droppedFrames: 1 }] }],
    },
    { family: 'paired', protocol: 'pair_comparison', votes: paired },
    { family: 'mlds', protocol: 'maximum_likelihood_difference_scaling', votes: await fixtureVotes<'mlds'>('mlds-quadruples.csv', 'maximum_likelihood_difference_scaling') },
    { family: 'bubble', protocol: 'bubble', votes: bubble, images: () => ({ bytes: png, mimeType: 'image/png' }) },
    {
      family: 'piiface',
      protocol: 'piiface',
      votes: [
        { observer: 'o1', stimulus: EVIL, expectedEmotion: 3, answer: 41 },
        { observer: 'o2', stimulus: EVIL, expectedEmotion: 3, answer: 52 },
      ],
    },
  ];
}

async function readCsv(path: string): Promise<string[][]> {
  const rows: string[][] = [];
  for await (const r of csvRecords([readFileSync(path, 'utf8')])) rows.push(r);
  return rows;
}

describe('writeReport', () => {
  it('writes a self-contained HTML page, report.json and CSVs that agree, for every family', async () => {
    for (const input of await inputs()) {
      const dir = mkdtempSync(join(tmpdir(), `glimpse-report-${input.family}-`));
      const report = await analyse(input, options);
      const files = await writeReport(dir, report);
      const names = files.map((f) => basename(f));
      expect(names.slice(0, 2)).toEqual(['report.html', 'report.json']);
      expect(names.length).toBeGreaterThan(2);

      const html = readFileSync(join(dir, 'report.html'), 'utf8');
      expect(html).not.toMatch(/https?:\/\//);
      expect(html).not.toMatch(/<script|<link|<iframe|\bsrc=/i);
      expect(html).toContain('<svg');
      if (input.family !== 'mlds') expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
      if (input.family === 'bubble') expect(html).toContain('href="data:image/png;base64,');

      // Every CSV equals the tables rebuilt from report.json: the same numbers, to the last bit.
      const json = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
      expect(json).not.toHaveProperty('images');
      for (const table of reportTables(json)) {
        const csv = await readCsv(join(dir, `${table.name}.csv`));
        expect(csv[0]).toEqual(table.columns);
        expect(csv.slice(1)).toEqual(table.rows.map((row) => row.map(csvCell)));
      }
      expect(readFileSync(files[2], 'utf8')).toMatch(/\r\n$/);
    }
  });

  it('neutralises formula-leading text cells of the CSVs; numbers and report.json stay as they are', () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`'=HYPERLINK("http://x","y")`);
    expect(csvCell('@x.png')).toBe("'@x.png");
    expect(csvCell('-1')).toBe('-1');
    expect(csvCell(-1.25)).toBe('-1.25');
    expect(csvCell(null)).toBe('');
  });

  it('puts the run, the kept observers and the charts in the page', async () => {
    const [rating] = await inputs();
    const dir = mkdtempSync(join(tmpdir(), 'glimpse-report-page-'));
    await writeReport(dir, await analyse(rating, options));
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    for (const text of ['What was run', 'Observers kept and why', 'BT.500', 'Seed', '2024-06-01T12:00:00.000Z', 'Timing', 'target: 7 of 6 frames']) expect(html).toContain(text);
    // MOS, per condition, content x, DMOS, vote distribution, P.910 quality, bias × inconsistency (one content: no
    // chart of the conditions across contents)
    expect(html.match(/<svg/g)?.length).toBe(7);
    const json = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    expect(json.stimuli[0]).toMatchObject({ stimulus: EVIL, n: 4 });
    expect(json.observers[0]).toMatchObject({ observer: 'o1', rejected: { bt500: false } });
    expect(json.p910.stimuli).toHaveLength(3);
    expect(json.options.seed).toBe(7);
  });
});
