/**
 * npm run bench:report: writes docs/benchmarks.md from bench/results/*.json. `-- --check` writes nothing and exits
 * 1 when the page differs from what the files give (the unit test does the same).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderBenchmarksDoc, SECTIONS } from './report.js';
import { Results } from './results.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const RESULTS_FOLDER = path.join(repoRoot, 'bench/results');
export const DOC_FILE = path.join(repoRoot, 'docs/benchmarks.md');

const only = process.argv.find((arg) => arg.startsWith('--section='))?.slice('--section='.length);
if (only) {
  // a preview while writing a section: its line of the table and its body, on stdout
  const section = SECTIONS.find((s) => s.title === only);
  if (!section) throw new Error(`no section ${only}: ${SECTIONS.map((s) => s.title).join(', ')}`);
  const results = Results.readFolder(RESULTS_FOLDER);
  console.log(JSON.stringify(section.latest(results), null, 2));
  console.log(section.render(results));
} else if (process.argv.includes('--check')) {
  const text = renderBenchmarksDoc(Results.readFolder(RESULTS_FOLDER));
  const current = readFileSync(DOC_FILE, 'utf8');
  if (current !== text) {
    console.error('docs/benchmarks.md differs from bench/results: run `npm run bench:report`.');
    process.exit(1);
  }
  console.log('docs/benchmarks.md matches bench/results.');
} else {
  const text = renderBenchmarksDoc(Results.readFolder(RESULTS_FOLDER));
  writeFileSync(DOC_FILE, text);
  console.log(`wrote ${path.relative(repoRoot, DOC_FILE)} (${text.split('\n').length} lines)`);
}
