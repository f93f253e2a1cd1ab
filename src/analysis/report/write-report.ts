/** Writes a report as report.html (self-contained), report.json (every number) and one CSV per table. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { csvLine, neutraliseFormula } from '../csv.js';
import { isUnavailable, type AnyReport, type Report } from '../report-types.js';
import type { PairedResult, PairedScaleRow } from '../paired/paired.js';
import {
  specForBiasInconsistency,
  specForBradleyTerry,
  specForCalibration,
  specForConditionAcrossContents,
  specForConditionMos,
  specForConfusion,
  specForDmos,
  specForHeatmap,
  specForJodScale,
  specForMldsNormalized,
  specForMldsScale,
  specForMos,
  specForP910Quality,
  specForRanking,
  specForVoteDistribution,
  specForViewCoverage,
} from './charts.js';
import { reportHtml, type RenderedChart } from './html.js';
import { renderSvg } from './render-svg.js';
import { reportTables, type Cell } from './tables.js';

/** Per-content charts at most (each is an SVG in the page); the CSV tables hold every content. */
export const MAX_CONTENT_CHARTS = 40;

type Chart = { title: string; spec: TopLevelSpec };

/** The scale's rows split by connected part of the comparison graph: each part on its own axis. */
function partsOf(result: PairedResult): { label: string; rows: PairedScaleRow[] }[] {
  if (result.parts.length <= 1) return [{ label: '', rows: result.scale }];
  return result.parts.map((names, i) => ({
    label: `, part ${i + 1} of ${result.parts.length} (not comparable with the other parts)`,
    rows: names.map((name) => result.scale.find((r) => r.stimulus === name)!),
  }));
}

function pairedCharts(result: PairedResult, where = ''): Chart[] {
  const charts: Chart[] = [];
  for (const { label, rows } of partsOf(result)) {
    charts.push({ title: `Thurstone Case V scale in JOD with 95 % bootstrap CI${where}${label}.`, spec: specForJodScale(rows, `Thurstone scale in JOD (95 % bootstrap CI)${where}${label}`) });
  }
  return charts;
}

function ratingCharts(report: Extract<Report, { family: 'rating' }>): Chart[] {
  const charts: Chart[] = [{ title: 'MOS per stimulus with 95 % CI, sorted.', spec: specForMos(report.stimuli) }];
  if (report.conditions.length > 0) charts.push({ title: 'MOS per condition with 95 % CI.', spec: specForConditionMos(report.conditions) });
  const contents = [...new Set(report.stimuli.map((s) => s.content).filter((c): c is string => c !== null))];
  // Worth a chart only when some condition was applied to several contents.
  const contentsPerCondition = new Map<string, number>();
  for (const c of report.contents) if (c.condition !== null) contentsPerCondition.set(c.condition, (contentsPerCondition.get(c.condition) ?? 0) + 1);
  if ([...contentsPerCondition.values()].some((n) => n > 1)) {
    charts.push({ title: 'MOS per condition across contents: one line per content.', spec: specForConditionAcrossContents(report.contents) });
  }
  for (const content of contents.slice(0, MAX_CONTENT_CHARTS)) {
    const own = report.stimuli.filter((s) => s.content === content);
    // Labelled by condition where each condition is one stimulus of the content (the usual design).
    const byCondition = own.every((s) => s.condition !== null) && new Set(own.map((s) => s.condition)).size === own.length;
    const stimuli = own.map((s) => ({ ...s, stimulus: byCondition ? s.condition! : s.condition === null ? s.stimulus : `${s.condition} — ${s.stimulus}` }));
    charts.push({
      title: `Content ${content}: MOS per ${byCondition ? 'condition' : 'stimulus'} with 95 % CI.`,
      spec: specForMos(stimuli, `Content ${content}: MOS per ${byCondition ? 'condition' : 'stimulus'} (95 % CI)`),
    });
  }
  if (report.dmos && report.dmos.length > 0) charts.push({ title: 'DMOS per stimulus (hidden references at 5) with 95 % CI.', spec: specForDmos(report.dmos) });
  charts.push({ title: 'Distribution of the raw votes (all observers, before screening).', spec: specForVoteDistribution(report.distribution.scores) });
  charts.push({ title: 'P.910 Annex E quality with 95 % CI.', spec: specForP910Quality(report.p910.stimuli) });
  charts.push({ title: 'P.910 Annex E observer bias against inconsistency.', spec: specForBiasInconsistency(report.p910.observers) });
  return charts;
}

/** The charts of a report, in page order: the family's, then the viewpoint coverage of 3D objects. */
export function chartSpecs(report: AnyReport): Chart[] {
  if (isUnavailable(report)) return [];
  const views = (report.views?.stimuli ?? []).slice(0, MAX_CONTENT_CHARTS).map((s) => ({
    title: `Viewpoint coverage of ${s.stimulus} in inspect mode: share of the inspection time per ${report.views!.cells.azimuthDeg}° × ${report.views!.cells.elevationDeg}° cell (${s.trials} answers).`,
    spec: specForViewCoverage(s.stimulus, report.views!.cells, s.coverage),
  }));
  return [...familyCharts(report), ...views];
}

function familyCharts(report: Report): Chart[] {
  switch (report.family) {
    case 'rating':
      return ratingCharts(report);
    case 'paired': {
      const charts = pairedCharts(report);
      for (const { label, rows } of partsOf(report)) {
        charts.push({ title: `Bradley–Terry scale with 95 % bootstrap CI${label}.`, spec: specForBradleyTerry(rows, `Bradley–Terry scale (logit, 95 % bootstrap CI)${label}`) });
      }
      for (const { label, rows } of partsOf(report)) {
        charts.push({ title: `Ranking plot: rank by JOD with its 95 % bootstrap interval${label}.`, spec: specForRanking(rows, `Ranking by JOD (1 = best, 95 % bootstrap interval of the rank)${label}`) });
      }
      for (const scene of report.scenes.slice(0, MAX_CONTENT_CHARTS)) charts.push(...pairedCharts(scene, `, scene ${scene.scene}`));
      return charts;
    }
    case 'mlds':
    case 'triplet':
      return [
        { title: 'MLDS difference scale with 95 % CI.', spec: specForMldsScale(report.scale) },
        { title: 'MLDS scale normalised to 0–1 (ψ/ψmax) with 95 % bootstrap CI.', spec: specForMldsNormalized(report.scale) },
      ];
    case 'bubble':
      return report.media.map((m) => ({
        title: `Dwell heatmap of ${m.stimulus}, media ${m.media}; the cross marks the peak.`,
        spec: specForHeatmap({ ...m, image: report.images?.[`${m.stimulus}/${m.media}`] ?? null }),
      }));
    case 'piiface':
      return [
        { title: 'Confusion matrix: expected emotion × answered emotion.', spec: specForConfusion(report.confusion, report.emotions) },
        { title: 'Accuracy per confidence level.', spec: specForCalibration(report.perConfidence) },
      ];
  }
}

/**
 * CSV text of a table cell: empty for null and non-finite numbers. Text (stimulus, condition and media names from
 * the study, observer ids, reasons) that begins with `=`, `+`, `-`, `@`, tab or CR gets a leading `'` so a
 * spreadsheet runs no formula (OWASP CSV injection); report.json keeps every value unchanged for scripts.
 */
export function csvCell(value: Cell): string {
  if (value === null || (typeof value === 'number' && !Number.isFinite(value))) return '';
  if (typeof value === 'string') return neutraliseFormula(value);
  return String(value); // numbers: shortest text that parses back to the same double
}

/** report.json: the report without the bubble images (they are inputs, not results). */
export function reportJson(report: AnyReport): string {
  const { images: _images, ...rest } = report as AnyReport & { images?: unknown };
  return `${JSON.stringify(rest, null, 2)}\n`;
}

/** Writes the report into `dir` (created if needed) and returns the paths of the files written. */
export async function writeReport(dir: string, report: AnyReport): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const tables = reportTables(report);
  const charts: RenderedChart[] = [];
  for (const { title, spec } of chartSpecs(report)) charts.push({ title, svg: await renderSvg(spec) });
  const files: [string, string][] = [
    ['report.html', reportHtml(report, tables, charts)],
    ['report.json', reportJson(report)],
    ...tables.map((t): [string, string] => [`${t.name}.csv`, [t.columns, ...t.rows.map((r) => r.map(csvCell))].map(csvLine).join('')]),
  ];
  const written: string[] = [];
  for (const [name, content] of files) {
    const path = join(dir, name);
    await writeFile(path, content, 'utf8');
    written.push(path);
  }
  return written;
}
