import { blocks, bullets, day, num, table, times, yesNo } from '../markdown.js';
import { resultDate, runLine, type Results, type Stamped } from '../results.js';
import type { BenchSection } from '../section.js';

interface Route {
  n: number;
  p50: number;
  p99: number;
  failed: number;
}
interface Accuracy {
  rmse: number;
  pearson: number;
  spearman: number;
}
interface AdaptiveServerResult extends Stamped {
  config: { database: string; nodes: number; participants: number; overS: number; thinkMs: number; budget: number; contents: number; conditions: number; step: number; clickerShare: number; seeds: number };
  completed: Record<'fixed' | 'adaptive', number>;
  routes: Record<'fixed' | 'adaptive', Record<'playlist' | 'rating' | 'code', Route>>;
  arrivalP99Ratio: number;
  routeP99TargetMs: number;
  routeTargetMet: boolean;
  server: Accuracy;
  simulation: { window: number; rmseMean: number; band: { low: number; high: number }; pearsonMean: number; spearmanMean: number };
  fullDesign: { rmseMean: number; pearsonMean: number; spearmanMean: number };
  withinBand: boolean;
}

const FILES = /^adaptive-server-.*\.json$/;

const runs = (results: Results) => results.names(FILES).map((file) => ({ file, result: results.get<AdaptiveServerResult>(file)! }));
const where = (r: AdaptiveServerResult) => `${r.config.database === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${r.config.nodes} node${r.config.nodes > 1 ? 's' : ''}`;

export const adaptiveServerSection: BenchSection = {
  title: 'bench:adaptive-server',
  latest(results) {
    const all = runs(results);
    if (all.length === 0) return { ran: 'not run', headline: '—', files: ['adaptive-server-*.json'] };
    const latest = all.map((r) => resultDate(r.result)).sort().at(-1);
    return {
      ran: day(latest),
      headline: all
        .map(
          ({ result: r }) =>
            `${where(r)}: RMSE ${num(r.server.rmse, 3)} JOD (simulated ${num(r.simulation.band.low, 3)}–${num(r.simulation.band.high, 3)}: ` +
            `${r.withinBand ? 'within' : '**outside**'}), arrival p99 ${num(r.routes.adaptive.playlist.p99, 1)} ms (${times(r.arrivalP99Ratio)} of a fixed design)`,
        )
        .join('; '),
      files: all.map((r) => r.file),
    };
  },
  render(results: Results) {
    const all = runs(results);
    return blocks(
      '**`npm run bench:adaptive-server [-- --db postgres --nodes 2] [-- --participants N]`** (`bench/adaptive/server.ts`, ' +
        '[Adaptive pair comparison](adaptive.md); issue 38 item 5): the adaptive job through the real server. ' +
        "bench:adaptive's crowd (wide ladder, 10 contents × 8 conditions, 10 % of the participants random clickers) " +
        "runs bench:launch's participant journey against server processes, answering as its observers, on an `asap` " +
        'job with a budget of 70 comparisons a participant, then the same arrivals on a fixed design of the same size ' +
        '(the baseline of the same run). The scale of the stored, included answers is compared with the truth, and ' +
        'with the same job simulated in-process (the same planner; each arrival sees as pending the comparisons of the ' +
        'participants still running when it came, as many as the server run had on average) over many crowds: its ' +
        '95 % band. The full design at the same budget is simulated too.',
      all.length === 0 ? '`adaptive-server-*.json`: not run on this checkout.' : bullets(all.map(({ file, result }) => runLine(file, result))),
      all.length > 0 &&
        table(
          ['Run', 'Participants (completed: fixed, adaptive)', 'Arrival p50 / p99 ms: fixed, adaptive', 'Rating p99 ms', 'Code p99 ms', `Every route's p99 under the launch target`],
          all.map(({ result: r }) => [
            where(r),
            `${num(r.config.participants)} (${num(r.completed.fixed)}, ${num(r.completed.adaptive)})`,
            `${num(r.routes.fixed.playlist.p50, 1)} / ${num(r.routes.fixed.playlist.p99, 1)}, ${num(r.routes.adaptive.playlist.p50, 1)} / ${num(r.routes.adaptive.playlist.p99, 1)}`,
            `${num(r.routes.fixed.rating.p99, 1)}, ${num(r.routes.adaptive.rating.p99, 1)}`,
            `${num(r.routes.fixed.code.p99, 1)}, ${num(r.routes.adaptive.code.p99, 1)}`,
            `${yesNo(r.routeTargetMet)} (< ${num(r.routeP99TargetMs)} ms)`,
          ]),
          [1, 2, 3, 4],
        ),
      all.length > 0 &&
        table(
          ['Run', 'RMSE (JOD) through the server', 'Simulated: mean, 95 % band (seeds)', 'Within the band', 'Full design at the same budget (simulated)', 'Pearson / Spearman: server, simulated'],
          all.map(({ result: r }) => [
            where(r),
            `**${num(r.server.rmse, 3)}**`,
            `${num(r.simulation.rmseMean, 3)}, ${num(r.simulation.band.low, 3)}–${num(r.simulation.band.high, 3)} (${num(r.config.seeds)}; pending window ${num(r.simulation.window)})`,
            yesNo(r.withinBand),
            num(r.fullDesign.rmseMean, 3),
            `${num(r.server.pearson, 3)} / ${num(r.server.spearman, 3)}, ${num(r.simulation.pearsonMean, 3)} / ${num(r.simulation.spearmanMean, 3)}`,
          ]),
          [1, 2, 4],
        ),
    );
  },
};
