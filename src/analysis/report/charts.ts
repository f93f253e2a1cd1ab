/**
 * Every chart of the report as a Vega-Lite spec built by a pure function of the report's data, so that a web
 * console can render the same specs interactively (vega-embed) while the report renders them to SVG.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { Interval } from '../stats.js';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';
const WIDTH = 560;
/** Height per category row of the dot plots (keeps long stimulus lists readable). */
const ROW = 16;

interface Estimate {
  label: string;
  value: number;
  ci95: Interval | null;
}

/** Horizontal dot plot with 95 % CI bars, categories sorted by value (highest on top). */
function dotPlotWithCi(estimates: Estimate[], title: string, axisTitle: string, domain?: [number, number]): TopLevelSpec {
  const values = estimates.map((e) => ({ label: e.label, value: e.value, lo: e.ci95?.[0] ?? e.value, hi: e.ci95?.[1] ?? e.value }));
  const x = { type: 'quantitative' as const, title: axisTitle, ...(domain ? { scale: { domain, zero: false } } : { scale: { zero: false } }) };
  const y = { field: 'label', type: 'nominal' as const, title: null, sort: { field: 'value', order: 'descending' as const } };
  return {
    $schema: SCHEMA,
    title,
    width: WIDTH,
    height: Math.max(60, ROW * values.length),
    data: { values },
    layer: [
      { mark: { type: 'rule', color: '#7a7a7a' }, encoding: { y, x: { field: 'lo', ...x }, x2: { field: 'hi' } } },
      { mark: { type: 'point', filled: true, color: '#1f5fa8', size: 40 }, encoding: { y, x: { field: 'value', ...x } } },
    ],
  };
}

export function specForMos(stimuli: { stimulus: string; mos: number; ci95: Interval }[], title = 'MOS per stimulus (95 % CI), sorted'): TopLevelSpec {
  return dotPlotWithCi(stimuli.map((s) => ({ label: s.stimulus, value: s.mos, ci95: s.ci95 })), title, 'MOS');
}

export function specForConditionMos(conditions: { condition: string; mos: number; ci95: Interval }[]): TopLevelSpec {
  return dotPlotWithCi(conditions.map((c) => ({ label: c.condition, value: c.mos, ci95: c.ci95 })), 'MOS per condition (95 % CI)', 'MOS');
}

export function specForP910Quality(stimuli: { stimulus: string; quality: number; ci95: Interval }[]): TopLevelSpec {
  return dotPlotWithCi(stimuli.map((s) => ({ label: s.stimulus, value: s.quality, ci95: s.ci95 })), 'P.910 Annex E quality (95 % CI)', 'Quality');
}

/** Observer bias against inconsistency (P.910 Annex E), with both CIs. */
export function specForBiasInconsistency(
  observers: { observer: string; bias: number; biasCi95: Interval; inconsistency: number; inconsistencyCi95: Interval }[],
): TopLevelSpec {
  const values = observers.map((o) => ({
    observer: o.observer,
    bias: o.bias,
    biasLo: o.biasCi95[0],
    biasHi: o.biasCi95[1],
    inconsistency: o.inconsistency,
    incLo: o.inconsistencyCi95[0],
    incHi: o.inconsistencyCi95[1],
  }));
  const bias = { type: 'quantitative' as const, title: 'Bias (score units)' };
  const inconsistency = { type: 'quantitative' as const, title: 'Inconsistency (SD, score units)', scale: { zero: true } };
  return {
    $schema: SCHEMA,
    title: 'Observers: bias against inconsistency (P.910 Annex E, 95 % CI)',
    width: WIDTH,
    height: 360,
    data: { values },
    layer: [
      { mark: { type: 'rule', color: '#b5b5b5' }, encoding: { x: { field: 'biasLo', ...bias }, x2: { field: 'biasHi' }, y: { field: 'inconsistency', ...inconsistency } } },
      { mark: { type: 'rule', color: '#b5b5b5' }, encoding: { x: { field: 'bias', ...bias }, y: { field: 'incLo', ...inconsistency }, y2: { field: 'incHi' } } },
      { mark: { type: 'point', filled: true, color: '#1f5fa8', size: 40 }, encoding: { x: { field: 'bias', ...bias }, y: { field: 'inconsistency', ...inconsistency } } },
      { mark: { type: 'text', dx: 6, align: 'left', fontSize: 9, color: '#444' }, encoding: { x: { field: 'bias', ...bias }, y: { field: 'inconsistency', ...inconsistency }, text: { field: 'observer' } } },
    ],
  };
}

export function specForJodScale(scale: { stimulus: string; jod: number; ci95: Interval | null }[], title = 'Thurstone scale in JOD (95 % bootstrap CI)'): TopLevelSpec {
  return dotPlotWithCi(scale.map((s) => ({ label: s.stimulus, value: s.jod, ci95: s.ci95 })), title, 'JOD');
}

export function specForBradleyTerry(scale: { stimulus: string; bt: number; bt_ci95: Interval | null }[], title = 'Bradley–Terry scale (logit, 95 % bootstrap CI)'): TopLevelSpec {
  return dotPlotWithCi(scale.map((s) => ({ label: s.stimulus, value: s.bt, ci95: s.bt_ci95 })), title, 'θ');
}

/** Difference scale against the stimulus level, with 95 % CI bars. */
export function specForMldsScale(
  scale: { level: number; value: number; ci95: Interval | null }[],
  title = 'MLDS difference scale (95 % CI)',
  axisTitle = 'Difference scale ψ (σ = 1)',
): TopLevelSpec {
  const values = scale.map((s) => ({ level: s.level, value: s.value, lo: s.ci95?.[0] ?? s.value, hi: s.ci95?.[1] ?? s.value }));
  const x = { field: 'level', type: 'quantitative' as const, title: 'Stimulus level', scale: { zero: false } };
  const y = { type: 'quantitative' as const, title: axisTitle };
  return {
    $schema: SCHEMA,
    title,
    width: WIDTH,
    height: 320,
    data: { values },
    layer: [
      { mark: { type: 'line', color: '#1f5fa8' }, encoding: { x, y: { field: 'value', ...y } } },
      { mark: { type: 'rule', color: '#7a7a7a' }, encoding: { x, y: { field: 'lo', ...y }, y2: { field: 'hi' } } },
      { mark: { type: 'point', filled: true, color: '#1f5fa8', size: 40 }, encoding: { x, y: { field: 'value', ...y } } },
    ],
  };
}

/**
 * Dwell heatmap over the stimulus: the image (when given, a data URL) then the heat cells, semi-transparent.
 * Axes are stimulus pixels with y downwards, as on screen.
 */
export function specForHeatmap(media: {
  stimulus: string;
  media: 'A' | 'B';
  width: number;
  height: number;
  peak: { x: number; y: number } | null;
  heatmap: { columns: number; rows: number; blockPx: number; values: number[] };
  image?: string | null;
}): TopLevelSpec {
  const { columns, blockPx, values } = media.heatmap;
  const cells = values
    .map((value, k) => ({ x: (k % columns) * blockPx, y: Math.floor(k / columns) * blockPx, value }))
    .filter((c) => c.value > 0.02)
    .map((c) => ({ ...c, x2: Math.min(c.x + blockPx, media.width), y2: Math.min(c.y + blockPx, media.height) }));
  const plotWidth = 420;
  const plotHeight = Math.max(40, Math.round((plotWidth * media.height) / media.width));
  const x = { type: 'quantitative' as const, scale: { domain: [0, media.width], nice: false }, axis: { title: 'x (px)' } };
  const y = { type: 'quantitative' as const, scale: { domain: [0, media.height], nice: false, reverse: true }, axis: { title: 'y (px)' } };
  const layer: NonNullable<Extract<TopLevelSpec, { layer: unknown }>['layer']> = [];
  if (media.image) {
    layer.push({
      data: { values: [{ url: media.image }] },
      mark: { type: 'image', width: plotWidth, height: plotHeight, align: 'left', baseline: 'top', aspect: false, aria: false },
      encoding: { x: { datum: 0, ...x }, y: { datum: 0, ...y }, url: { field: 'url', type: 'nominal' } },
    });
  }
  layer.push({
    data: { values: cells },
    mark: { type: 'rect', opacity: 0.55 },
    encoding: {
      x: { field: 'x', ...x },
      x2: { field: 'x2' },
      y: { field: 'y', ...y },
      y2: { field: 'y2' },
      color: { field: 'value', type: 'quantitative', scale: { scheme: 'inferno', domain: [0, 1] }, legend: { title: 'dwell / peak' } },
    },
  });
  if (media.peak) {
    layer.push({
      data: { values: [{ x: media.peak.x, y: media.peak.y }] }, // a copy: vega tags the objects it is given
      mark: { type: 'point', shape: 'cross', size: 120, color: '#00d0ff', strokeWidth: 2 },
      encoding: { x: { field: 'x', ...x }, y: { field: 'y', ...y } },
    });
  }
  return { $schema: SCHEMA, title: `${media.stimulus} — media ${media.media}`, width: plotWidth, height: plotHeight, layer };
}

/** Confusion matrix: expected emotion (rows) × answered emotion (columns), counts and row shares. */
export function specForConfusion(confusion: number[][], labels: readonly string[]): TopLevelSpec {
  const values = confusion.flatMap((row, e) => {
    const total = row.reduce((a, b) => a + b, 0);
    return row.map((count, a) => ({ expected: labels[e], answered: labels[a], count, share: total > 0 ? count / total : 0 }));
  });
  const x = { field: 'answered', type: 'nominal' as const, sort: [...labels], title: 'Answered' };
  const y = { field: 'expected', type: 'nominal' as const, sort: [...labels], title: 'Expected' };
  return {
    $schema: SCHEMA,
    title: 'Confusion matrix (share of each expected emotion)',
    width: 420,
    height: 420,
    data: { values },
    layer: [
      { mark: 'rect', encoding: { x, y, color: { field: 'share', type: 'quantitative', scale: { scheme: 'blues', domain: [0, 1] }, legend: { title: 'share' } } } },
      {
        mark: { type: 'text', fontSize: 11 },
        encoding: { x, y, text: { field: 'count', type: 'quantitative' }, color: { condition: { test: 'datum.share > 0.5', value: 'white' }, value: 'black' } },
      },
    ],
  };
}

/** Accuracy per confidence level (calibration). */
export function specForCalibration(levels: { confidence: string; accuracy: number | null; answered: number }[]): TopLevelSpec {
  return {
    $schema: SCHEMA,
    title: 'Accuracy per confidence level',
    width: 420,
    height: 200,
    data: { values: levels.filter((l) => l.accuracy !== null).map((l) => ({ confidence: l.confidence, accuracy: l.accuracy })) },
    mark: { type: 'bar', color: '#1f5fa8' },
    encoding: {
      x: { field: 'confidence', type: 'nominal', sort: levels.map((l) => l.confidence), title: null, axis: { labelAngle: -20 } },
      y: { field: 'accuracy', type: 'quantitative', scale: { domain: [0, 1] }, title: 'Accuracy' },
    },
  };
}

/** DMOS per stimulus (ACR-HR), with its 95 % CI; the hidden references sit at 5. */
export function specForDmos(rows: { stimulus: string; dmos: number; ci95: Interval }[]): TopLevelSpec {
  return dotPlotWithCi(rows.map((r) => ({ label: r.stimulus, value: r.dmos, ci95: r.ci95 })), 'DMOS per stimulus (ACR-HR, 95 % CI), sorted', 'DMOS');
}

/** MOS of each condition, one line per content: how a condition fares across contents. */
export function specForConditionAcrossContents(cells: { content: string; condition: string | null; mos: number }[]): TopLevelSpec {
  const values = cells.filter((c) => c.condition !== null).map((c) => ({ content: c.content, condition: c.condition, mos: c.mos }));
  // Conditions in order of their mean MOS over the contents, so that each content's line reads left to right.
  const x = { field: 'condition', type: 'nominal' as const, title: 'Condition', axis: { labelAngle: -30 }, sort: { field: 'mos', op: 'mean' as const, order: 'ascending' as const } };
  const y = { field: 'mos', type: 'quantitative' as const, title: 'MOS', scale: { zero: false } };
  const color = { field: 'content', type: 'nominal' as const, title: 'Content' };
  return {
    $schema: SCHEMA,
    title: 'MOS per condition across contents',
    width: Math.max(WIDTH, 14 * new Set(values.map((v) => v.condition)).size),
    height: 320,
    data: { values },
    layer: [
      { mark: { type: 'line', opacity: 0.7 }, encoding: { x, y, color } },
      { mark: { type: 'point', filled: true, size: 40 }, encoding: { x, y, color } },
    ],
  };
}

/** How many votes gave each score (all observers, before screening). */
export function specForVoteDistribution(scores: { score: number; votes: number }[]): TopLevelSpec {
  return {
    $schema: SCHEMA,
    title: 'Distribution of the raw votes',
    width: 360,
    height: 200,
    data: { values: scores.map((s) => ({ score: String(s.score), votes: s.votes })) },
    mark: { type: 'bar', color: '#1f5fa8' },
    encoding: {
      x: { field: 'score', type: 'ordinal', title: 'Score', sort: scores.map((s) => String(s.score)), axis: { labelAngle: 0 } },
      y: { field: 'votes', type: 'quantitative', title: 'Votes' },
    },
  };
}

/** Ranking plot: each stimulus's rank by JOD (1 = best) with its 95 % bootstrap interval of ranks. */
export function specForRanking(scale: { stimulus: string; rank: number; rank_ci95: Interval | null }[], title = 'Ranking by JOD (1 = best, 95 % bootstrap interval of the rank)'): TopLevelSpec {
  const values = scale.map((s) => ({ label: s.stimulus, rank: s.rank, lo: s.rank_ci95?.[0] ?? s.rank, hi: s.rank_ci95?.[1] ?? s.rank }));
  const x = { type: 'quantitative' as const, title: 'Rank (1 = best)', scale: { domain: [1, Math.max(2, scale.length)], nice: false }, axis: { tickMinStep: 1 } };
  const y = { field: 'label', type: 'nominal' as const, title: null, sort: { field: 'rank', order: 'ascending' as const } };
  return {
    $schema: SCHEMA,
    title,
    width: WIDTH,
    height: Math.max(60, ROW * values.length),
    data: { values },
    layer: [
      { mark: { type: 'rule', color: '#7a7a7a', strokeWidth: 3 }, encoding: { y, x: { field: 'lo', ...x }, x2: { field: 'hi' } } },
      { mark: { type: 'point', filled: true, color: '#1f5fa8', size: 50 }, encoding: { y, x: { field: 'rank', ...x } } },
    ],
  };
}

/** MLDS scale normalised to 0–1 (ψ/ψmax, MLDS's standard scale), with its bootstrap percentile CI. */
export function specForMldsNormalized(scale: { level: number; normalized: number; normalizedCi95: Interval | null }[]): TopLevelSpec {
  return specForMldsScale(
    scale.map((s) => ({ level: s.level, value: s.normalized, ci95: s.normalizedCi95 })),
    'MLDS scale normalised to 0–1 (ψ/ψmax, 95 % bootstrap CI)',
    'ψ / ψmax',
  );
}

/** Viewpoint coverage of a 3D object: time share per azimuth × elevation cell, one heat cell per cell seen. */
export function specForViewCoverage(stimulus: string, cells: { azimuthDeg: number; elevationDeg: number }, coverage: ReadonlyArray<{ azimuthDeg: number; elevationDeg: number; share: number }>): TopLevelSpec {
  const values = coverage.map((c) => ({ az: c.azimuthDeg, az2: c.azimuthDeg + cells.azimuthDeg, el: c.elevationDeg, el2: c.elevationDeg + cells.elevationDeg, share: c.share }));
  return {
    $schema: SCHEMA,
    title: `${stimulus}: time per viewpoint`,
    width: 420,
    height: 210,
    data: { values },
    mark: { type: 'rect' },
    encoding: {
      x: { field: 'az', type: 'quantitative', scale: { domain: [0, 360], nice: false }, axis: { title: 'azimuth (°)', values: [0, 60, 120, 180, 240, 300, 360] } },
      x2: { field: 'az2' },
      y: { field: 'el', type: 'quantitative', scale: { domain: [-90, 90], nice: false }, axis: { title: 'elevation (°)', values: [-90, -45, 0, 45, 90] } },
      y2: { field: 'el2' },
      color: { field: 'share', type: 'quantitative', scale: { scheme: 'inferno', domainMin: 0 }, legend: { title: 'share of time', format: '.0%' } },
    },
  };
}
