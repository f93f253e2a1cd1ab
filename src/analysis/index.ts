/** Public API of the analysis core (see README.md). */
export { analyse, DEFAULT_RESAMPLES, DEFAULT_SEED, resolveOptions, toolVersion, unavailableReport, type AnalysisInput } from './analyse.js';
export { isUnavailable } from './report-types.js';
// Active sampling of pair comparisons (ASAP, gfxdisp/asap): the posterior over the scores and the next pairs to ask.
export * as asap from './asap/asap.js';
export { analysisOptionsOf, progressLines, REPORT_OPTIONS, REPORT_OPTIONS_USAGE, REPORT_USAGE, ReportUsageError, reportFromVotesCommand } from './cli.js';
export { CsvError, csvLine, csvRecords } from './csv.js';
export { createRandom, type Random } from './random.js';
export * as charts from './report/charts.js';
export { renderSvg } from './report/render-svg.js';
export { chartSpecs, reportJson, writeReport } from './report/write-report.js';
export type * from './report-types.js';
export { analyseTiming, DEFAULT_TIMING_RULE, flagTrial, TimingAccumulator, type TimingResult } from './timing/timing.js';
export type * from './types.js';
export { inspectionOf, VIEW_CELLS, ViewsAccumulator, type ViewsResult } from './views/views.js';
export { familyOfProtocol, KNOWN_PROTOCOLS, readVotesCsv, type VotesCsv } from './votes-csv.js';
