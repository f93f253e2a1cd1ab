import { blocks, bullets, day, num, table, yesNo } from '../markdown.js';
import { resultDate, runLine, type Results, type Stamped } from '../results.js';
import type { BenchSection } from '../section.js';

interface Throughput {
  name: string;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  total2xx: number;
  committed: number;
  cpuUsPerRequest?: number;
  bareRps?: number;
  ratio?: number;
  perNodeRps?: number[];
}
interface ApiResult extends Stamped {
  connections: number;
  durationS: number;
  target: { ratio: number; p99Ms: number };
  bare: Throughput[];
  runs: Throughput[];
  nodes?: { oneNode: Throughput; threeNodes: Throughput; ratio: number };
  freeze?: {
    bodyBytes: number;
    withoutToken: { status: number; ms: number; targetMs: number; met: boolean };
    withToken: { status: number; ms: number };
    metaIdleMedianMs: number;
    metaWorstDuringParseMs: number;
    metaProbesDuringParse: number;
    metaDelayMs: number;
    delayTargetMs: number;
    met: boolean;
  };
}
interface InlineBodyResult extends Stamped {
  smallBodyBytes: number;
  rows: { name: string; bytes: number; outcome: string; medianMs: number; worstMs: number; ratioToBaseline: number }[];
}

/** The server's label for a run ("glimpse sqlite WAL DURABLE (default: …)") in the table's words. */
const serverName = (name: string) =>
  name
    .replace(/^glimpse /, '')
    .replace(/^sqlite WAL (\w+).*$/, 'SQLite `$1`')
    .replace(/^postgresql$/, 'PostgreSQL (same machine), group commit');

function throughputTable(api: ApiResult): string {
  const rows = api.runs.map((run) => [
    serverName(run.name),
    num(run.rps),
    num(run.bareRps),
    `**${num(run.ratio, 3)}**`,
    `${num(run.p50Ms, 1)} ms`,
    `${num(run.p99Ms, 1)} ms`,
    `${num(run.cpuUsPerRequest)} µs`,
    `${num(run.committed)} / ${num(run.total2xx)}`,
  ]);
  return table(
    ['Server', 'Ratings/s', 'Bare server req/s', 'Ratio', 'p50', 'p99', 'Server CPU per request', 'Committed / 2xx'],
    rows,
    [1, 2, 3, 4, 5, 6],
  );
}

/** Status 0: the server closed the connection before its answer could be read (a refusal of a body it did not read). */
const refusal = (status: number) => (status === 0 ? 'the connection closed unread' : String(status));

const durableRun = (api: ApiResult) => api.runs.find((run) => /DURABLE/.test(run.name));
const postgresRun = (api: ApiResult) => api.runs.find((run) => /postgres/.test(run.name));

export const apiSection: BenchSection = {
  title: 'bench:api',
  latest(results) {
    const api = results.get<ApiResult>('api.json');
    if (!api) return { ran: 'not run', headline: '—', files: ['api.json'] };
    const durable = durableRun(api);
    const postgres = postgresRun(api);
    return {
      ran: day(resultDate(api)),
      headline:
        `SQLite \`DURABLE\` ${num(durable?.rps)} ratings/s, **${num(durable?.ratio, 3)}** of a bare \`node:http\` server, ` +
        `p99 ${num(durable?.p99Ms, 1)} ms; PostgreSQL ${num(postgres?.rps)}/s, **${num(postgres?.ratio, 3)}**`,
      files: ['api.json', 'inline-body.json'],
    };
  },
  render(results: Results) {
    const api = results.get<ApiResult>('api.json');
    const inline = results.get<InlineBodyResult>('inline-body.json');
    const durable = api && durableRun(api);
    return blocks(
      '**`npm run bench:api`** (`bench/api/`, [its README](../bench/api/README.md)): `POST /api/ratings/`, every request a ' +
        'new rating answering a presentation not answered before, driven by autocannon against the server in its own ' +
        'process, right after the same load against a bare `node:http` server answering 200 on the same machine. The ' +
        'ratio of the two is the figure to read on shared cores. After each run the committed rows are counted: they ' +
        'exceed the 2xx answers by the requests still in flight when the load stopped.',
      runLine('api.json', api),
      api &&
        blocks(
          `${num(api.connections)} connections, ${num(api.durationS)} s per server:`,
          throughputTable(api),
          `Target on the default mode (\`DURABLE\`): at least ${num(api.target.ratio, 1)} of the bare server's rate with ` +
            `p99 under ${num(api.target.p99Ms)} ms: **${durable?.ratio !== undefined && durable.ratio >= api.target.ratio && durable.p99Ms < api.target.p99Ms ? 'met' : 'not met'}**.`,
        ),
      api?.nodes &&
        bullets([
          `**3 nodes on one PostgreSQL database** (three server processes, the same connections spread over them): ` +
            `${num(api.nodes.threeNodes.rps)} ratings/s (${(api.nodes.threeNodes.perNodeRps ?? []).map((r) => num(r)).join(' + ')}), ` +
            `p99 ${num(api.nodes.threeNodes.p99Ms)} ms, against ${num(api.nodes.oneNode.rps)}/s for one node just before ` +
            `(ratio ${num(api.nodes.ratio, 2)}); ${num(api.nodes.threeNodes.committed)} rows committed for ` +
            `${num(api.nodes.threeNodes.total2xx)} 2xx answers. The three processes and PostgreSQL share the same cores: ` +
            'this shows correctness under contention, not scaling.',
        ]),
      api?.freeze &&
        bullets([
          `**Cheap rejection**: a ${num(api.freeze.bodyBytes / 1e6, 1)} MB invalid mouse-log body without the session ` +
            `token is refused (${refusal(api.freeze.withoutToken.status)}) in ${num(api.freeze.withoutToken.ms, 1)} ms (target ` +
            `< ${num(api.freeze.withoutToken.targetMs)} ms: ${yesNo(api.freeze.withoutToken.met)}); with the token it is ` +
            `parsed and refused (${api.freeze.withToken.status}) in a worker thread in ${num(api.freeze.withToken.ms, 1)} ms, ` +
            `during which \`/meta.json\` answered ${num(api.freeze.metaProbesDuringParse)} probes in at most ` +
            `${num(api.freeze.metaWorstDuringParseMs, 1)} ms (idle median ${num(api.freeze.metaIdleMedianMs, 1)} ms: delay ` +
            `${num(api.freeze.metaDelayMs, 1)} ms, target < ${num(api.freeze.delayTargetMs)} ms: ${yesNo(api.freeze.met)}).`,
        ]),
      '**Small bodies read on the event loop** (`npx tsx bench/api/inline-body.ts`): session logs up to ' +
        `${num(inline?.smallBodyBytes)} bytes are parsed and validated in the request's own turn; each row is the time ` +
        'of that work against a short valid log ([Security](security.md#large-valid-bodies-off-the-event-loop)).',
      runLine('inline-body.json', inline),
      inline &&
        table(
          ['Body', 'Bytes', 'Answer', 'Median', 'Worst', 'Median / baseline'],
          inline.rows.map((row) => [
            row.name,
            num(row.bytes),
            row.outcome,
            `${num(row.medianMs, 2)} ms`,
            `${num(row.worstMs, 2)} ms`,
            `× ${num(row.ratioToBaseline, 1)}`,
          ]),
          [1, 3, 4, 5],
        ),
    );
  },
};
