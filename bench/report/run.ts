/**
 * npm run bench:report: writes docs/benchmarks.md, and the latest figures in README.md, from bench/results/*.json.
 * `-- --check` writes nothing and exits 1 when either differs from what the files give (the unit test does the
 * same). `-- --section=bench:api` prints one section, for writing it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DOC_FILE, README_FILE, RESULTS_FOLDER, renderBenchmarksDoc, SECTIONS, withReadmeFigures } from './report.js';
import { Results } from './results.js';

const only = process.argv.find((arg) => arg.startsWith('--section='))?.slice('--section='.length);
if (only) {
  const section = SECTIONS.find((s) => s.title === only);
  if (!section) throw new Error(`no section ${only}: ${SECTIONS.map((s) => s.title).join(', ')}`);
  const results = Results.readFolder(RESULTS_FOLDER);
  console.log(JSON.stringify(section.latest(results), null, 2));
  console.log(section.render(results));
} else {
  const wanted = new Map([
    [DOC_FILE, renderBenchmarksDoc(Results.readFolder(RESULTS_FOLDER))],
    [README_FILE, withReadmeFigures(readFileSync(README_FILE, 'utf8'), Results.readFolder(RESULTS_FOLDER))],
  ]);
  const check = process.argv.includes('--check');
  let differs = false;
  for (const [file, text] of wanted) {
    const name = path.relative(path.dirname(README_FILE), file);
    const current = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (current === text) {
      console.log(`${name}: matches bench/results`);
    } else if (check) {
      console.error(`${name} differs from bench/results: run \`npm run bench:report\`.`);
      differs = true;
    } else {
      writeFileSync(file, text);
      console.log(`${name}: written (${text.split('\n').length} lines)`);
    }
  }
  if (differs) process.exit(1);
}
