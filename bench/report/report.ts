/**
 * docs/benchmarks.md, written from bench/results/*.json alone (issue 37): every figure in it comes from a result
 * file, every result file is used, and the same files always give the same text (no clock, no host read here).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { blocks, table } from './markdown.js';
import { Results } from './results.js';
import { anchorOf, type BenchSection } from './section.js';
import { threeDSection } from './sections/3d.js';
import { adaptiveSection } from './sections/adaptive.js';
import { adaptiveServerSection } from './sections/adaptive-server.js';
import { analysisSection } from './sections/analysis.js';
import { apiSection } from './sections/api.js';
import { bubbleSection } from './sections/bubble.js';
import { consoleSection } from './sections/console.js';
import { displaySection } from './sections/display.js';
import { fidelitySection } from './sections/fidelity.js';
import { launchSection } from './sections/launch.js';
import { participantsSection } from './sections/participants.js';
import { timingSection } from './sections/timing.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const RESULTS_FOLDER = path.join(repoRoot, 'bench/results');
export const DOC_FILE = path.join(repoRoot, 'docs/benchmarks.md');
export const README_FILE = path.join(repoRoot, 'README.md');

export const SECTIONS: readonly BenchSection[] = [
  apiSection,
  consoleSection,
  launchSection,
  participantsSection,
  timingSection,
  displaySection,
  bubbleSection,
  threeDSection,
  fidelitySection,
  analysisSection,
  adaptiveSection,
  adaptiveServerSection,
];

export const GENERATED_NOTICE =
  '<!-- Written by `npm run bench:report` from bench/results/*.json: do not edit by hand. Change a section in ' +
  'bench/report/sections/, or run its benchmark again. -->';

const INTRO = [
  'Each benchmark writes `bench/results/<name>.json` and compares against a baseline measured in the same run: this ' +
    'machine has 2 shared cores, so read the ratios, not the absolute times. This page is written from those files ' +
    'by `npm run bench:report` (`bench/report/`); no figure on it is typed by hand, and a test fails when the page ' +
    'and the files disagree.',
  'Under each section, one line per result file says where its figures come from: when it ran, the commit and ' +
    'whether tracked files differed from it, the host, its calibration (median time of SHA-256 over 16 MiB as the ' +
    'benchmark starts: results whose calibrations differ by more than a few per cent ran on hosts, or under loads, ' +
    'that differ as much) and the load average at its start and end (`bench/shared/run-stamp.ts`). Results written ' +
    'before 2026-11-28 lack that stamp and say so.',
  'Figures named shown, exact or latency come from an independent reading: the captured pixels of the virtual ' +
    'display (`testkit/virtualDisplay.ts`) or a watcher that reads the canvas. A figure that is the stage\'s own ' +
    'record is labelled "as recorded". The browser figures are SwiftShader (WebGL on the CPU) unless marked GPU; ' +
    'the GPU figures come from the machine lent to this project now and then ' +
    '([below](#running-the-browser-benches-on-the-gpu-machine)). Every summary (p50, p95, p99, SD) is ' +
    '`bench/shared/statistics.ts`: quantiles of type 7, as R and NumPy compute them by default.',
  'Earlier runs, whose result files later runs replaced, are in the hand-written [benchmark log](benchmark-history.md).',
].join('\n\n');

const OUTRO = `## Running the browser benches on the GPU machine

The GPU machine lent to this project has no browser and no network, so Debian's Chromium travels there in parts
(\`scripts/gpu/\`, [its README](../scripts/gpu/README.md)): \`scripts/gpu/pack-browser.sh\` packs
\`chromium-headless-shell\`, its \`ldd\` closure from Debian packages, Node and the bench kit into parts under
\`.gpu/\`; one device call brings each part, and \`run-on-gpu.sh\` reassembles them, picks graphics flags whose WebGL
renderer is the GPU and runs the \`--gpu\` benches, which write \`bench/results/*-gpu.json\`. A SwiftShader or
llvmpipe renderer writes no GPU figures.

## Other measurements

- \`npm run crash:ratings [-- --sqlite]\`: kill -9 under load, every acknowledged rating looked up afterwards (a
  script, not a benchmark: [bench/api/README.md](../bench/api/README.md)).
- \`node --expose-gc --import tsx bench/api/mouse-log-block.ts [postgres]\`: the event loop while a mouse log is
  stored ([Security](security.md#large-valid-bodies-off-the-event-loop)).
- Interruptions measured on the virtual display: [Frame-accurate timing](timing.md#when-the-stage-cannot-draw-interruptions).`;

/** The page's "Latest figures" table, its links relative to `linkBase` (README.md links into docs/). */
function latestTable(results: Results, sections: readonly BenchSection[], linkBase: string): string {
  const rows = sections.map((section) => {
    const latest = section.latest(results);
    return [
      `[${section.title}](${linkBase}#${anchorOf(section.title)})`,
      latest.ran,
      latest.headline,
      latest.files.map((file) => `\`${file}\``).join(', '),
    ];
  });
  return table(['Benchmark', 'Latest run', 'Headline', 'Result files (`bench/results/`)'], rows);
}

export const README_MARKERS = { start: '<!-- bench:report latest figures -->', end: '<!-- /bench:report -->' } as const;

/**
 * README.md with the block between its markers replaced by the latest figures, so that the README's figures are
 * the generated page's and cannot go stale apart from it.
 */
export function withReadmeFigures(readme: string, results: Results, sections: readonly BenchSection[] = SECTIONS): string {
  const start = readme.indexOf(README_MARKERS.start);
  const end = readme.indexOf(README_MARKERS.end);
  if (start < 0 || end < start) throw new Error(`README.md lacks the markers ${README_MARKERS.start} … ${README_MARKERS.end}`);
  const block = latestTable(results, sections, 'docs/benchmarks.md');
  return `${readme.slice(0, start + README_MARKERS.start.length)}\n${block}\n${readme.slice(end)}`;
}

export function renderBenchmarksDoc(results: Results, sections: readonly BenchSection[] = SECTIONS): string {
  const latest = latestTable(results, sections, '');
  const bodies = sections.map((section) => `## ${section.title}\n\n${section.render(results)}`);
  const unused = results.unused();
  if (unused.length > 0) {
    throw new Error(`bench:report: no section reads ${unused.join(', ')}: add it to a section in bench/report/sections/`);
  }
  return `${blocks(
    GENERATED_NOTICE,
    '# Benchmarks',
    INTRO,
    '## Latest figures',
    latest,
    ...bodies,
    OUTRO,
  )}\n`;
}
