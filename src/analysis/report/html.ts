/**
 * report.html: one self-contained page (inline CSS and SVG, no script, no external resource) that says what
 * was run, which observers were kept and why, then the results. Every string from the data is escaped.
 */
import { isUnavailable, type AnyReport } from '../report-types.js';
import type { Cell, ReportTable } from './tables.js';

/** Rows shown per table in the page; the CSV files hold all of them. */
export const HTML_TABLE_ROWS = 200;

export interface RenderedChart {
  title: string;
  svg: string;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** Numbers rounded for reading (4 decimals at most); report.json and the CSVs keep full precision. */
export function formatCell(value: Cell): string {
  if (value === null || (typeof value === 'number' && Number.isNaN(value))) return '—';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(4)));
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return value;
}

function tableHtml(table: ReportTable): string {
  const shown = table.rows.slice(0, HTML_TABLE_ROWS);
  const head = table.columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('');
  const body = shown
    .map((row) => `<tr>${row.map((cell) => `<td${typeof cell === 'number' ? ' class="n"' : ''}>${escapeHtml(formatCell(cell))}</td>`).join('')}</tr>`)
    .join('\n');
  const more =
    table.rows.length > shown.length ? `<p class="note">First ${shown.length} of ${table.rows.length} rows; all of them are in ${escapeHtml(table.name)}.csv.</p>` : '';
  return `<h3>${escapeHtml(table.title)} <span class="file">(${escapeHtml(table.name)}.csv)</span></h3>
<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>
${body}
</tbody></table></div>${more}`;
}

function list(items: string[]): string {
  return items.length === 0 ? '<p>None.</p>' : `<ul>${items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul>`;
}

function definitionRows(rows: [string, string][]): string {
  return `<table class="kv">${rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>`;
}

function runSection(report: AnyReport): string {
  const o = report.options;
  const options: [string, string][] = [
    ['Seed', String(o.seed)],
    ['Bootstrap resamples', String(o.resamples)],
    ['Exclude flagged trials', o.excludeFlagged ? 'yes' : 'no'],
  ];
  if (report.family === 'rating') {
    options.push(['Screening applied to MOS and P.910 model', o.screening]);
    options.push(['Correlation threshold / variance threshold', `${o.correlationThreshold} / ${o.varianceThreshold}`]);
  }
  if (report.family === 'paired') options.push(['Scale offset', o.anchor === null ? 'mean 0 (pwcmp mean0)' : `${o.anchor} at 0 (pwcmp fix0)`]);
  if (report.family === 'bubble') options.push(['Smoothing σ / cell', `${o.bubbleSigma === null ? 'window radius' : `${o.bubbleSigma} px`} / ${o.bubbleCell} px`]);
  if (report.timing) options.push(['Timing rule', `exact frames: ${o.timingRule.exactFrames ? 'yes' : 'no'}; dropped frames allowed: ${o.timingRule.maxDroppedFrames}`]);
  const v = report.votes;
  return `<section id="run"><h2>What was run</h2>
${definitionRows([
  ['Protocol', `${report.protocol} (${report.family})`],
  ['Input', report.source ?? '(not named)'],
  ['Votes', `${v.read} read, ${v.flagged} flagged for timing, ${v.excluded} of them excluded, ${v.skipped} unusable and skipped`],
  ['Observers', String(v.observers)],
  ['Generated', report.generatedAt],
  ['Tool', `${report.tool.name} ${report.tool.version}`],
])}
<h3>Options</h3>${definitionRows(options)}
<h3>Methods</h3>${list(report.methods)}
<h3>Notes</h3>${list(report.notes)}
</section>`;
}

function observersSection(report: AnyReport): string {
  let body: string;
  if (isUnavailable(report)) return `<section id="observers"><h2>Observers kept and why</h2>${qualityHtml(report)}<p>No screening of the analysis: there are no results.</p></section>`;
  switch (report.family) {
    case 'rating': {
      const s = report.screening;
      const rows: [string, string][] = [
        ['ITU-R BT.500-14 Annex 1 §2.3.1', `${s.bt500.rejected} of ${s.observers} rejected${s.bt500.allWouldBeRejected ? ' (all met the rule, so none rejected)' : ''}`],
        ['ITU-T P.913 bias removal, then BT.500', `${s.p913.rejected} of ${s.observers} rejected${s.p913.allWouldBeRejected ? ' (all met the rule, so none rejected)' : ''}`],
        [
          'P.910 crowd rules (correlation, straight-lining)',
          `${s.correlation.rejected} of ${s.observers} rejected: Pearson r ≤ ${s.correlation.pearsonThreshold.toFixed(4)} (${s.correlation.pearsonRejected}), Spearman ρ ≤ ${s.correlation.spearmanThreshold.toFixed(4)} (${s.correlation.spearmanRejected}), variance < ${s.correlation.varianceThreshold} (${s.correlation.straightLining})`,
        ],
      ];
      body = `${definitionRows(rows)}<p><strong>${s.kept} of ${s.observers} observers kept</strong> for the MOS and the P.910 model (screening applied: ${escapeHtml(s.applied)}). Each observer's flags are in observers.csv.</p>`;
      break;
    }
    case 'paired': {
      if (!report.options.pairedOutliers) {
        body = `<p><strong>All ${report.observers.length} observers kept.</strong> The leave-one-out outlier check was skipped (--skip-outliers).</p>`;
        break;
      }
      const outliers = report.observers.filter((o) => o.outlier);
      const pooled = report.scenes.length > 0 ? ' on the votes pooled over the scenes' : '';
      body = `<p><strong>All ${report.observers.length} observers kept.</strong> pwcmp's leave-one-out check flags ${outliers.length}${pooled} as possible outliers (dist_L &gt; 1.5)${outliers.length ? `: ${escapeHtml(outliers.map((o) => o.observer).join(', '))}` : ''}; exclude them and rerun if you reject them.</p>`;
      if (report.scenes.length > 0) {
        const perScene = report.scenes.map((scene): [string, string] => {
          const flagged = scene.observers.filter((o) => o.outlier).map((o) => o.observer);
          return [`Scene ${scene.scene}`, flagged.length ? `${flagged.length} flagged: ${flagged.join(', ')}` : 'none flagged'];
        });
        body += `<p>Per scene (pwcmp screens each scene on its own):</p>${definitionRows(perScene)}`;
      }
      break;
    }
    default:
      body = `<p><strong>All ${report.votes.observers} observers kept</strong> (no screening method is defined for this protocol).</p>`;
  }
  const flagged = report.votes.excluded > 0 ? `<p>${report.votes.excluded} flagged trials were excluded before the analysis.</p>` : '';
  return `<section id="observers"><h2>Observers kept and why</h2>${qualityHtml(report)}${body}${flagged}</section>`;
}

/** The sessions' quality control (stored jobs): both verdicts, what each rule decided, and who was left out. */
function qualityHtml(report: AnyReport): string {
  const q = report.quality;
  if (!q) return '';
  const s = q.sessions;
  const rules = q.rules.map((r): [string, string] => [
    `${r.words} (${r.decides === 'payment' ? 'rejects and excludes' : 'excludes only'})`,
    r.passed + r.failed === 0 ? 'not applicable' : `${r.passed} passed, ${r.failed} failed${r.notApplicable ? ` (${r.notApplicable} not applicable)` : ''}`,
  ]);
  const leftOut = q.observers.filter((o) => o.failed.length > 0);
  const list = leftOut.length
    ? `<ul>${leftOut.map((o) => `<li>${escapeHtml(o.observer)}: payment ${o.payment}, analysis ${o.analysis}${o.inReport ? ', kept in this report' : ', left out of this report'}: ${escapeHtml(o.failed.map((f) => f.reason).join('; '))}</li>`).join('')}</ul>`
    : '';
  const kept = (flag: 'rejected' | 'excluded') => (q.include[flag] ? `kept in the analysis (--include ${flag})` : 'left out of everything below');
  return `<h3>Quality control</h3><p><strong>${s.kept} sessions in this report.</strong> Of ${s.completed} completed sessions, ${s.approved} approved and ${s.rejected} rejected for payment (${kept('rejected')}); ${s.included} included in the analysis and ${s.excluded} excluded (technical exclusions ${kept('excluded')})${s.notJudged ? `; ${s.notJudged} not judged yet` : ''}${s.incomplete ? `; ${s.incomplete} incomplete sessions included` : ''}. Every verdict is in quality-observers.csv.</p>${definitionRows(rules)}${list}<h3>Screening of the analysis</h3>`;
}

/** The results, or per section what is missing for them. */
function resultsSection(report: AnyReport, tables: ReportTable[], figures: string): string {
  if (isUnavailable(report)) {
    return `<section id="results"><h2>Results</h2>${report.unavailable.map((m) => `<p class="missing"><strong>${escapeHtml(m.section)}: not computed.</strong> Missing: ${escapeHtml(m.missing)}</p>`).join('\n')}\n${tables.map(tableHtml).join('\n')}\n</section>`;
  }
  return `<section id="results"><h2>Results</h2>\n${figures}\n${tables.map(tableHtml).join('\n')}\n</section>`;
}

/** What the data cannot support, before anything else (empty when there is nothing to warn of). */
function warningsSection(report: AnyReport): string {
  if (report.warnings.length === 0) return '';
  return `<section id="warnings" class="warnings"><h2>Warnings</h2>${list(report.warnings)}</section>`;
}

export function reportHtml(report: AnyReport, tables: ReportTable[], charts: RenderedChart[]): string {
  const title = `Glimpse report — ${report.protocol}`;
  const figures = charts.map((c) => `<figure>${c.svg}<figcaption>${escapeHtml(c.title)}</figcaption></figure>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; color: #1d1d1d; }
h1 { font-size: 1.6rem; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2rem; margin-top: 2.2rem; } h3 { font-size: 1.05rem; }
table { border-collapse: collapse; font-size: 12.5px; } th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; } table.kv th { background: #f4f4f4; width: 18rem; }
.scroll { overflow-x: auto; max-height: 32rem; overflow-y: auto; } .file, .note { color: #666; font-weight: normal; font-size: .9em; }
.warnings { background: #fff4e5; border: 1px solid #e0a040; padding: 0 1rem .5rem; } .warnings h2 { border: 0; margin-top: 1rem; }
figure { margin: 1.5rem 0; } figcaption { color: #555; font-size: .9em; } svg { max-width: 100%; height: auto; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${warningsSection(report)}
${runSection(report)}
${observersSection(report)}
${resultsSection(report, tables, figures)}
</body>
</html>
`;
}
