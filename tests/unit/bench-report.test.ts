import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DOC_FILE,
  README_FILE,
  RESULTS_FOLDER,
  renderBenchmarksDoc,
  SECTIONS,
  withReadmeFigures,
} from '../../bench/report/report.js';
import { Results } from '../../bench/report/results.js';

/**
 * docs/benchmarks.md and the README's figures are written by `npm run bench:report` from bench/results (issue 37):
 * regenerating them changes nothing, and a figure on the page follows its result file.
 */

const committedResults = () => Results.readFolder(RESULTS_FOLDER);
const resultFiles = () => {
  const results = committedResults();
  return new Map(results.names(/\.json$/).map((name) => [name, results.get<unknown>(name)]));
};

describe('bench:report', () => {
  it('docs/benchmarks.md is what the result files give', () => {
    expect(readFileSync(DOC_FILE, 'utf8')).toBe(renderBenchmarksDoc(committedResults()));
  });

  it("the README's latest figures are the page's", () => {
    const readme = readFileSync(README_FILE, 'utf8');
    expect(readme).toBe(withReadmeFigures(readme, committedResults()));
  });

  it('a figure changed in a result file changes the page', () => {
    const files = resultFiles();
    const api = structuredClone(files.get('api.json')) as { runs: { name: string; rps: number }[] };
    const durable = api.runs.find((run) => /DURABLE/.test(run.name))!;
    durable.rps = 12_345;
    files.set('api.json', api);
    const page = renderBenchmarksDoc(new Results(files));
    expect(page).toContain('12,345');
    expect(renderBenchmarksDoc(committedResults())).not.toContain('12,345');
  });

  it('refuses to write the page while a result file is read by no section', () => {
    const files = resultFiles();
    files.set('new-bench.json', { date: '2026-11-28T00:00:00.000Z' });
    expect(() => renderBenchmarksDoc(new Results(files))).toThrow(/no section reads new-bench\.json/);
  });

  it('every section says when its benchmark has not been run instead of failing', () => {
    const none = new Results(new Map());
    for (const section of SECTIONS) {
      expect(() => section.render(none), section.title).not.toThrow();
      expect(section.latest(none).ran, section.title).toBe('not run');
    }
  });
});
