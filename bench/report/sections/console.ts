import { blocks, bullets, day, num, table } from '../markdown.js';
import { resultDate, runLine, type Results, type Stamped } from '../results.js';
import type { BenchSection } from '../section.js';

interface Latencies {
  n: number;
  p50: number;
  p99: number;
  max: number;
  failures: number;
}
interface Phase {
  meta: Latencies;
  rating: Latencies;
  /** Session logs the posters' process stored, and the answers other than 201 (the session's quota reached). */
  /** busy (from 2026-11-28): refusals of the large-body budget, sent again after Retry-After; closedUnread: those whose connection closed before the answer was read. */
  logPosts: { stored: number; refused: number; busy?: number; closedUnread?: number };
  /** The size of one posted log. */
  logBytes: number;
  /** Stats events the consoles received in the phase. */
  statsEvents: number;
}
interface ConsoleResult extends Stamped {
  database: 'sqlite' | 'postgres';
  phaseSeconds: number;
  /** os.loadavg() as the run ended (1, 5 and 15 minutes). */
  loadAverage?: number[];
  idle: Phase;
  loaded: Phase;
  p99Ratio: { meta: number; rating: number };
  targetP99Ms: number;
  met?: boolean;
}

const FILES = ['console.json', 'console-postgres.json'] as const;
const databaseName = (result: ConsoleResult) => (result.database === 'postgres' ? 'PostgreSQL' : 'SQLite');

/** The result's own verdict; computed from its figures where an older file lacks it. */
const targetMet = (result: ConsoleResult) =>
  result.met ?? (result.loaded.meta.p99 < result.targetP99Ms && result.loaded.rating.p99 < result.targetP99Ms);

function probeRows(result: ConsoleResult): string[][] {
  const row = (probe: string, idle: Latencies, loaded: Latencies, ratio: number) => [
    databaseName(result),
    probe,
    num(idle.n),
    `${num(idle.p50, 1)} / ${num(idle.p99, 1)}`,
    num(loaded.n),
    `${num(loaded.p50, 1)} / **${num(loaded.p99, 1)}**`,
    num(loaded.max, 1),
    `${num(idle.failures)} / ${num(loaded.failures)}`,
    `× ${num(ratio, 2)}`,
  ];
  return [
    row('`/meta.json`', result.idle.meta, result.loaded.meta, result.p99Ratio.meta),
    row('rating post', result.idle.rating, result.loaded.rating, result.p99Ratio.rating),
  ];
}

/** What the load was: the logs stored while probing, the refusals, the consoles' events. */
function loadLine(result: ConsoleResult): string {
  const posts = result.loaded.logPosts;
  const logMb = result.loaded.logBytes / 1e6;
  return (
    `${databaseName(result)}: ${num(posts.stored)} session logs of ${num(logMb, 1)} MB stored while probing ` +
    `(${num(posts.stored * logMb)} MB), ${num(posts.refused)} refused (the session's quota of logs reached)` +
    (posts.busy === undefined ? ', ' : `, ${num(posts.busy)} turned away while the large-body budget was full and sent again after its Retry-After (${num(posts.closedUnread)} of them closed unread), `) +
    `${num(result.loaded.statsEvents)} stats events received by the consoles.`
  );
}

function fileLine(file: string, result: ConsoleResult | undefined): string {
  if (!result) return runLine(file, result);
  const load = result.loadAverage ? ` Load average (1, 5, 15 min) as it ended: ${result.loadAverage.map((l) => num(l, 2)).join(', ')}.` : '';
  return `${runLine(file, result)} Each phase ${num(result.phaseSeconds)} s.${load}`;
}

export const consoleSection: BenchSection = {
  title: 'bench:console',
  latest(results) {
    const runs = FILES.map((file) => results.get<ConsoleResult>(file)).filter((r): r is ConsoleResult => r !== undefined);
    if (runs.length === 0) return { ran: 'not run', headline: '—', files: [...FILES] };
    const both = (pick: (r: ConsoleResult) => number) => runs.map((r) => num(pick(r), 1)).join(' / ');
    return {
      ran: [...new Set(runs.map((r) => day(resultDate(r))))].join(', '),
      headline:
        `while sessions post large logs and consoles watch: \`/meta.json\` p99 ${both((r) => r.loaded.meta.p99)} ms, ` +
        `rating posts ${both((r) => r.loaded.rating.p99)} ms (${runs.map(databaseName).join(' / ')}); target p99 < ` +
        `${num(runs[0]!.targetP99Ms)} ms **${runs.every(targetMet) ? 'met' : 'not met'}**`,
      files: [...FILES],
    };
  },
  render(results: Results) {
    const runs = FILES.map((file) => ({ file, result: results.get<ConsoleResult>(file) }));
    const measured = runs.flatMap(({ result }) => (result ? [result] : []));
    return blocks(
      '**`npm run bench:console [-- --postgres]`** (`bench/console/`, [its README](../bench/console/README.md)): what a ' +
        'participant and a researcher feel while others push the server. The server runs in its own process, on SQLite ' +
        '(its default mode) or PostgreSQL, with a 300-stimulus pair-comparison job. Two probes run one request at a ' +
        'time each: `/meta.json` every 10 ms, and a rating post every 25 ms, each answering a presentation not answered ' +
        'before. They run first on the idle server, then, for as long again, while another process runs 20 sessions ' +
        "posting valid session logs back to back (a new session once one's quota of logs is spent) and 3 signed-in " +
        "consoles watch the job's live statistics. Probing under load starts once the first log is stored. Both " +
        'phases are in the same run: read the ratio of their p99, not the absolute times.',
      runs.map(({ file, result }) => fileLine(file, result)).join('\n\n'),
      measured.length > 0 &&
        blocks(
          'Latencies in ms; failures are answers other than success, idle / loaded:',
          table(
            ['Database', 'Probe', 'Idle n', 'Idle p50 / p99', 'Loaded n', 'Loaded p50 / p99', 'Loaded max', 'Failures', 'p99 loaded / idle'],
            measured.flatMap(probeRows),
            [2, 3, 4, 5, 6, 7, 8],
          ),
          bullets(measured.map(loadLine)),
          'Target: p99 under load below the threshold the result states, for both probes: ' +
            measured.map((r) => `${databaseName(r)} (< ${num(r.targetP99Ms)} ms) **${targetMet(r) ? 'met' : 'not met'}**`).join(', ') +
            '.',
        ),
    );
  },
};
