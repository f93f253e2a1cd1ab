import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { reportFromVotesCommand } from './cli.js';
import { fixturePath } from './test-support.js';

function capture() {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

async function run(args: string[]) {
  const out = capture();
  const err = capture();
  const code = await reportFromVotesCommand(args, { out: out.stream, err: err.stream });
  return { code, out: out.text(), err: err.text() };
}

describe('report --votes', () => {
  it('writes the report of a fixture CSV into the output folder', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'glimpse-cli-')), 'out');
    const result = await run(['--votes', fixturePath('nflx-public.csv'), '--protocol', 'absolute_category_rating', '--out', dir, '--screening', 'bt500', '--seed', '3']);
    expect(result.code).toBe(0);
    for (const name of ['report.html', 'report.json', 'stimuli.csv', 'observers.csv', 'p910-stimuli.csv', 'p910-observers.csv', 'dmos.csv']) {
      expect(existsSync(join(dir, name))).toBe(true);
      expect(result.out).toContain(join(dir, name));
    }
    const json = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    expect(json.screening).toMatchObject({ applied: 'bt500', observers: 26, kept: 25 });
    expect(json.options.seed).toBe(3);
    expect(json.source).toBe(fixturePath('nflx-public.csv'));
  });

  it('prints bootstrap progress on stderr', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'glimpse-cli-'));
    const result = await run(['--votes', fixturePath('mlds-triads.csv'), '--protocol', 'triplet', '--out', dir, '--resamples', '50']);
    expect(result.code).toBe(0);
    expect(result.err).toContain('MLDS bootstrap: 50/50');
  });

  it.each([
    [[], /missing --votes, --protocol, --out/],
    [['--votes', 'x.csv', '--protocol', 'absolute_category_rating'], /missing --out/],
    [['--votes', 'x.csv', '--protocol', 'nope', '--out', '/tmp/x'], /unknown protocol "nope"/],
    [['--votes', '/nonexistent/v.csv', '--protocol', 'triplet', '--out', '/tmp/x'], /cannot read \/nonexistent\/v.csv/],
    [['--votes', 'x.csv', '--protocol', 'triplet', '--out', '/tmp/x', '--resamples', 'many'], /--resamples must be an integer/],
    [['--votes', 'x.csv', '--protocol', 'triplet', '--out', '/tmp/x', '--screening', 'all'], /--screening must be one of/],
    [['--votes', 'x.csv', '--bogus'], /Unknown option '--bogus'/],
  ])('usage error %j → exit 1 with a message', async (args, message) => {
    const result = await run(args as string[]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(message);
  });

  it.each([
    ['observer,stimulus,score\no1,a,4\no1,b,4,5\n', 'row 3: 4 fields where the header has 3'],
    ['observer,stimulus,score\no1,a,4\no1,b,12\n', 'row 3: score "12" is not on the absolute_category_rating scale (1, 2, 3, 4, 5)'],
  ])('refuses a bad votes row (%j): exit 1, the row number, no report written', async (text, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'glimpse-cli-'));
    const votes = join(dir, 'votes.csv');
    writeFileSync(votes, text);
    const result = await run(['--votes', votes, '--protocol', 'absolute_category_rating', '--out', join(dir, 'out')]);
    expect(result.code).toBe(1);
    expect(result.err).toContain(`${votes}: ${message}`);
    expect(existsSync(join(dir, 'out', 'report.json'))).toBe(false);
  });
});
