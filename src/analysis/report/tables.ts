/** The report's tables: one CSV file each, and the tables of the HTML page. */
import type { Interval } from '../stats.js';
import type { PairedScaleRow } from '../paired/paired.js';
import { isUnavailable, type AnyReport, type Report } from '../report-types.js';

export type Cell = string | number | boolean | null;

export interface ReportTable {
  /** File name without extension. */
  name: string;
  title: string;
  columns: string[];
  rows: Cell[][];
}

const ci = (interval: Interval | null | undefined): [number | null, number | null] => (interval ? [interval[0], interval[1]] : [null, null]);

const SCALE_COLUMNS = ['stimulus', 'jod', 'ci95_low', 'ci95_high', 'bt', 'bt_ci95_low', 'bt_ci95_high', 'rank', 'rank_ci95_low', 'rank_ci95_high', 'wins', 'comparisons'];
const scaleRow = (s: PairedScaleRow): Cell[] => [s.stimulus, s.jod, ...ci(s.ci95), s.bt, ...ci(s.bt_ci95), s.rank, ...ci(s.rank_ci95), s.wins, s.comparisons];

export function reportTables(report: AnyReport): ReportTable[] {
  const tables = isUnavailable(report) ? [] : familyTables(report);
  if (report.timing) {
    tables.push({
      name: 'timing-observers',
      title: 'Timing per observer',
      columns: ['observer', 'trials', 'flagged_trials', 'timed_steps', 'exact_steps', 'dropped_frames', 'skipped_video_frames', 'repeated_video_frames'],
      rows: report.timing.observers.map((o) => [o.observer, o.trials, o.flaggedTrials, o.timedSteps, o.exactSteps, o.droppedFrames, o.skippedVideoFrames, o.repeatedVideoFrames]),
    });
    tables.push({
      name: 'timing-flagged-trials',
      title: 'Trials flagged for timing',
      columns: ['observer', 'trial', 'reasons'],
      rows: report.timing.flagged.map((t) => [t.observer, t.trial, t.reasons.join('; ')]),
    });
  }
  if (report.views) {
    tables.push({
      name: 'views-stimuli',
      title: '3D objects in inspect mode: inspection per stimulus',
      columns: ['stimulus', 'trials', 'observers', 'inspect_ms_mean', 'inspect_ms_median', 'inspect_ms_min', 'azimuth_range_deg_median', 'azimuth_range_deg_min', 'cells_seen_share', 'zoom_p10', 'zoom_median', 'zoom_p90', 'zoom_min', 'zoom_max'],
      rows: report.views.stimuli.map((s) => [s.stimulus, s.trials, s.observers, s.inspectMs.mean, s.inspectMs.median, s.inspectMs.min, s.azimuthRangeDeg.median, s.azimuthRangeDeg.min, s.cellsSeenShare, s.zoom.p10, s.zoom.median, s.zoom.p90, s.zoom.min, s.zoom.max]),
    });
    tables.push({
      name: 'views-coverage',
      title: `3D objects in inspect mode: time per viewpoint cell (${report.views.cells.azimuthDeg}° azimuth × ${report.views.cells.elevationDeg}° elevation, lower edges)`,
      columns: ['stimulus', 'azimuth_deg', 'elevation_deg', 'ms', 'share'],
      rows: report.views.stimuli.flatMap((s) => s.coverage.map((c) => [s.stimulus, c.azimuthDeg, c.elevationDeg, c.ms, c.share])),
    });
  }
  if (report.quality) {
    tables.push({
      name: 'quality-rules',
      title: 'Quality control: sessions per rule',
      columns: ['rule', 'reason_in_words', 'decides', 'passed', 'failed', 'not_applicable'],
      rows: report.quality.rules.map((r) => [r.rule, r.words, r.decides, r.passed, r.failed, r.notApplicable]),
    });
    tables.push({
      name: 'quality-observers',
      title: 'Quality control: payment and analysis verdicts per observer (session)',
      columns: ['observer', 'payment', 'analysis', 'in_report', 'failed_rules', 'reasons'],
      rows: report.quality.observers.map((o) => [o.observer, o.payment, o.analysis, o.inReport, o.failed.map((f) => f.rule).join(' '), o.failed.map((f) => f.reason).join('; ')]),
    });
  }
  return tables;
}

function familyTables(report: Report): ReportTable[] {
  switch (report.family) {
    case 'rating': {
      const tables: ReportTable[] = [
        {
          name: 'stimuli',
          title: 'MOS per stimulus',
          columns: ['stimulus', 'condition', 'content', 'is_reference', 'n', 'mos', 'sd', 'se', 'ci95_low', 'ci95_high', 'ci95_t_low', 'ci95_t_high'],
          rows: report.stimuli.map((s) => [s.stimulus, s.condition, s.content, s.isReference, s.n, s.mos, s.sd, s.se, ...ci(s.ci95), ...ci(s.ci95_t)]),
        },
      ];
      if (report.conditions.length > 0) {
        tables.push({
          name: 'conditions',
          title: 'MOS per condition',
          columns: ['condition', 'stimuli', 'n', 'mos', 'sd', 'se', 'ci95_low', 'ci95_high', 'ci95_t_low', 'ci95_t_high'],
          rows: report.conditions.map((c) => [c.condition, c.stimuli, c.n, c.mos, c.sd, c.se, ...ci(c.ci95), ...ci(c.ci95_t)]),
        });
      }
      if (report.contents.length > 0) {
        tables.push({
          name: 'contents',
          title: 'MOS per content and condition',
          columns: ['content', 'condition', 'stimuli', 'n', 'mos', 'sd', 'se', 'ci95_low', 'ci95_high', 'ci95_t_low', 'ci95_t_high'],
          rows: report.contents.map((c) => [c.content, c.condition, c.stimuli, c.n, c.mos, c.sd, c.se, ...ci(c.ci95), ...ci(c.ci95_t)]),
        });
      }
      const sig = report.significance;
      if (sig.pairs.length > 0) {
        tables.push({
          name: 'significance',
          title: `Pairwise significance between ${sig.groupedBy === 'condition' ? 'conditions' : 'stimuli'}: ${sig.test}; ${sig.correction}`,
          columns: ['a', 'b', 'mean_a', 'mean_b', 'difference', 't', 'df', 'p', 'p_holm', 'significant'],
          rows: sig.pairs.map((q) => [q.a, q.b, q.meanA, q.meanB, q.difference, q.t, q.df, q.p, q.pHolm, q.significant]),
        });
      }
      tables.push(
        {
          name: 'votes-distribution',
          title: 'Distribution of the raw votes (all observers, before screening)',
          columns: ['score', 'votes', 'share'],
          rows: report.distribution.scores.map((d) => [d.score, d.votes, d.share]),
        },
        {
          name: 'votes-per-stimulus',
          title: 'Raw votes per stimulus and score',
          columns: ['stimulus', ...report.distribution.scores.map((d) => `score_${d.score}`)],
          rows: report.distribution.stimuli.map((d) => [d.stimulus, ...d.counts]),
        },
      );
      if (report.dmos) {
        tables.push({
          name: 'dmos',
          title: 'DMOS (ACR-HR)',
          columns: ['stimulus', 'content', 'reference', 'dmos', 'dmos_clipped', 'ci95_low', 'ci95_high'],
          rows: report.dmos.map((d) => [d.stimulus, d.content, d.reference, d.dmos, d.dmosClipped, ...ci(d.ci95)]),
        });
      }
      tables.push(
        {
          name: 'observers',
          title: 'Observers and screenings',
          columns: [
            'observer', 'n', 'kept', 'rejected_bt500', 'rejected_p913', 'rejected_correlation', 'rejected_pearson', 'rejected_spearman', 'straight_lining',
            'bt500_p', 'bt500_q', 'bt500_stat1', 'bt500_stat2', 'p913_bias', 'p913_p', 'p913_q', 'p913_stat1', 'p913_stat2', 'r_pearson', 'r_spearman', 'variance',
          ],
          rows: report.observers.map((o) => [
            o.observer, o.n, o.kept, o.rejected.bt500, o.rejected.p913, o.rejected.correlation, o.rejected.pearson, o.rejected.spearman, o.rejected.straightLining,
            o.bt500.p, o.bt500.q, o.bt500.stat1, o.bt500.stat2, o.p913.bias, o.p913.p, o.p913.q, o.p913.stat1, o.p913.stat2, o.r_pearson, o.r_spearman, o.variance,
          ]),
        },
        {
          name: 'p910-stimuli',
          title: 'P.910 Annex E: quality per stimulus',
          columns: ['stimulus', 'quality', 'quality_se', 'ci95_low', 'ci95_high'],
          rows: report.p910.stimuli.map((s) => [s.stimulus, s.quality, s.qualitySe, ...ci(s.ci95)]),
        },
        {
          name: 'p910-observers',
          title: 'P.910 Annex E: observer bias and inconsistency',
          columns: ['observer', 'n', 'bias', 'bias_se', 'bias_ci95_low', 'bias_ci95_high', 'inconsistency', 'inconsistency_se', 'inconsistency_ci95_low', 'inconsistency_ci95_high'],
          rows: report.p910.observers.map((o) => [o.observer, o.n, o.bias, o.biasSe, ...ci(o.biasCi95), o.inconsistency, o.inconsistencySe, ...ci(o.inconsistencyCi95)]),
        },
      );
      return tables;
    }
    case 'paired':
      return [
        {
          name: 'scale',
          title: 'Scale: Thurstone (JOD) and Bradley–Terry',
          columns: SCALE_COLUMNS,
          rows: report.scale.map(scaleRow),
        },
        ...(report.scenes.length > 0
          ? [
              {
                name: 'scenes',
                title: 'Scale per scene (each scene scaled on its own)',
                columns: ['scene', ...SCALE_COLUMNS],
                rows: report.scenes.flatMap((scene) => scene.scale.map((s) => [scene.scene, ...scaleRow(s)])),
              },
              {
                name: 'scene-observers',
                title: 'Observers per scene: leave-one-out outlier scores (pwcmp)',
                columns: ['scene', 'observer', 'trials', 'pairs', 'loglik10_per_pair', 'dist_l', 'outlier'],
                rows: report.scenes.flatMap((scene) => scene.observers.map((o) => [scene.scene, o.observer, o.trials, o.pairs, o.logLik10PerPair, o.distL, o.outlier])),
              },
            ]
          : []),
        {
          name: 'pairs',
          title: 'Preference counts per pair',
          columns: ['a', 'b', 'a_wins', 'b_wins', 'n', 'a_share'],
          rows: report.pairs.map((p) => [p.a, p.b, p.aWins, p.bWins, p.n, p.aShare]),
        },
        {
          name: 'counts',
          title: 'Preference matrix (row preferred to column)',
          columns: ['preferred', ...report.counts.stimuli],
          rows: report.counts.wins.map((row, i) => [report.counts.stimuli[i], ...row]),
        },
        {
          name: 'observers',
          title: 'Observers: leave-one-out outlier scores (pwcmp)',
          columns: ['observer', 'trials', 'pairs', 'loglik10_per_pair', 'dist_l', 'outlier'],
          rows: report.observers.map((o) => [o.observer, o.trials, o.pairs, o.logLik10PerPair, o.distL, o.outlier]),
        },
      ];
    case 'mlds':
    case 'triplet':
      return [
        {
          name: 'scale',
          title: 'MLDS difference scale',
          columns: [
            'level', 'value', 'normalized', 'normalized_ci95_low', 'normalized_ci95_high', 'se', 'bootstrap_sd', 'ci95_low', 'ci95_high', 'ci95_percentile_low', 'ci95_percentile_high',
          ],
          rows: report.scale.map((s) => [s.level, s.value, s.normalized, ...ci(s.normalizedCi95), s.se, s.bootstrapSd, ...ci(s.ci95), ...ci(s.ci95Percentile)]),
        },
        {
          name: 'fit',
          title: 'MLDS fit: log-likelihood and AIC',
          columns: ['trials', 'observers', 'levels', 'log_likelihood', 'aic', 'iterations', 'converged', 'separated'],
          rows: [[report.trials, report.observers, report.scale.length, report.logLik, report.aic, report.iterations, report.converged, report.separated]],
        },
      ];
    case 'bubble': {
      const tables: ReportTable[] = [
        {
          name: 'media',
          title: 'Dwell per stimulus and media',
          columns: [
            'stimulus', 'media', 'width', 'height', 'screenings', 'observers', 'sigma_px', 'cell_px', 'total_dwell_ms', 'mean_dwell_ms',
            'off_image_dwell_ms', 'mean_samples', 'coverage', 'peak_x', 'peak_y',
          ],
          rows: report.media.map((m) => [
            m.stimulus, m.media, m.width, m.height, m.screenings, m.observers, m.sigmaPx, m.cellPx, m.totalDwellMs, m.meanDwellMs,
            m.offImageDwellMs, m.meanSamples, m.coverage, m.peak?.x ?? null, m.peak?.y ?? null,
          ]),
        },
        {
          name: 'heatmaps',
          title: 'Heatmaps as drawn (blocks, dwell scaled to the peak cell)',
          columns: ['stimulus', 'media', 'block_column', 'block_row', 'block_px', 'value'],
          rows: report.media.flatMap((m) =>
            m.heatmap.values.map((value, k) => [m.stimulus, m.media, k % m.heatmap.columns, Math.floor(k / m.heatmap.columns), m.heatmap.blockPx, value]),
          ),
        },
      ];
      if (report.emotion) {
        tables.push({
          name: 'emotion',
          title: 'Emotion recognition per stimulus',
          columns: ['stimulus', 'answered', 'correct', 'accuracy'],
          rows: report.emotion.perStimulus.map((e) => [e.stimulus, e.answered, e.correct, e.accuracy]),
        });
      }
      return tables;
    }
    case 'piiface':
      return [
        {
          name: 'confusion',
          title: 'Confusion matrix (expected × answered)',
          columns: ['expected', ...report.emotions],
          rows: report.confusion.map((row, e) => [report.emotions[e], ...row]),
        },
        {
          name: 'emotions',
          title: 'Accuracy per expected emotion',
          columns: ['emotion', 'answered', 'correct', 'accuracy'],
          rows: report.perEmotion.map((r) => [r.emotion, r.answered, r.correct, r.accuracy]),
        },
        {
          name: 'confidence',
          title: 'Accuracy per confidence level',
          columns: ['confidence', 'answers', 'answered', 'correct', 'accuracy'],
          rows: report.perConfidence.map((r) => [r.confidence, r.answers, r.answered, r.correct, r.accuracy]),
        },
        {
          name: 'stimuli',
          title: 'Accuracy per stimulus',
          columns: ['stimulus', 'expected', 'answers', 'answered', 'correct', 'accuracy'],
          rows: report.perStimulus.map((r) => [r.stimulus, r.expected, r.answers, r.answered, r.correct, r.accuracy]),
        },
      ];
  }
}
