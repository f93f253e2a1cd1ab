/** Writes a report as report.html (self-contained), report.json (every number) and one CSV per table. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { csvLine, neutraliseFormula } from '../csv.js';
import { isUnavailable, type AnyReport } from '../report-types.js';
import {
  specForBiasInconsistency,
  specForBradleyTerry,
  specForCalibration,
  specForConditionMos,
  specForConfusion,
  specForHeatmap,
  specForJodScale,
  specForMldsScale,
  specForMos,
  specForP910Quality,
} from './charts.js';
import { reportHtml, type RenderedChart } from './html.js';
import { renderSvg } from './render-svg.js';
import { reportTables, type Cell } from './tables.js';

/** The charts of a report, in page order. */
export function chartSpecs(report: AnyReport): { title: string; spec: TopLevelSpec }[] {
  if (isUnavailable(report)) return [];
  switch (report.family) {
    case 'rating': {
      const charts = [{ title: 'MOS per stimulus with 95 % CI, sorted.', spec: specForMos(report.stimuli) }];
      if (report.conditions.length > 0) charts.push({ title: 'MOS per condition with 95 % CI.', spec: specForConditionMos(report.conditions) });
      charts.push({ title: 'P.910 Annex E quality with 95 % CI.', spec: specForP910Quality(report.p910.stimuli) });
      charts.push({ title: 'P.910 Annex E observer bias against inconsistency.', spec: specForBiasInconsistency(report.p910.observers) });
      return charts;
    }
    case 'paired':
      return [
        { title: 'Thurstone Case V scale in JOD with 95 % bootstrap CI.', spec: specForJodScale(report.scale) },
        { title: 'Bradley–Terry scale with 95 % bootstrap CI.', spec: specForBradleyTerry(report.scale) },
      ];
    case 'mlds':
    case 'triplet':
      return [{ title: 'MLDS difference scale with 95 % CI.', spec: specForMldsScale(report.scale) }];
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
