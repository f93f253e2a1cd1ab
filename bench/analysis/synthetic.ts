/**
 * Synthetic stored jobs for bench/analysis, generated from a known truth and written straight into the database
 * (the study through saveStudy, then sessions and ratings through testkit/bulk-rows: no HTTP, which bench/api
 * measures). Every rating carries the window text and a timing envelope like the web client's, so the export and
 * the report parse what they would parse on a real job.
 */
import { createRandom, shuffled } from '../../src/analysis/random.js';
import { normalCdf } from '../../src/analysis/stats.js';
import { saveStudy } from '../../src/server/storage/studies.js';
import type { Storage } from '../../src/server/storage/types.js';
import { BulkRatingWriter, insertCompletedSessions, stimuliByPlaylist } from '../../testkit/bulk-rows.js';
import { jobFields } from '../../testkit/job-fields.js';

/** pwcmp's JOD unit: P(i preferred to j) = Φ((q_i − q_j) / 1.4826). */
const JOD_SIGMA = 1.4826;
const CREATED_AT = '2025-01-01T00:00:00.000Z';

export interface AcrTruth {
  /** True quality per stimulus on the 5 = Excellent scale, by media path. */
  quality: Map<string, number>;
}

export interface PairedTruth {
  /** True scale per stimulus in JOD, by media path. */
  jod: Map<string, number>;
}

export interface AcrJobSpec {
  jobId: string;
  observers: number;
  stimuli: number;
  seed: number;
}

export interface PairedJobSpec {
  jobId: string;
  observers: number;
  /** Comparisons per observer (one playlist holds them). */
  comparisons: number;
  stimuli: number;
  /** Playlists (different random designs); observer o takes playlist o mod playlists. */
  playlists: number;
  seed: number;
}

const path = (prefix: string, i: number) => `${prefix}/s${String(i + 1).padStart(3, '0')}.png`;

/** The window text (SPEC §3) and a timing envelope of one exact presentation, as the web client posts them. */
function answerColumns(media: string[], answeredAt: number): { logs: string; timing: string } {
  const frames = 60;
  const records = media.map((m, k) => ({
    label: String.fromCharCode(65 + k),
    media: [m],
    requestedFrames: frames,
    shownFrames: frames,
    onsetMs: 1000 + k * 1000,
    offsetMs: 2000 + k * 1000,
    droppedFrames: 0,
    refreshMs: 16.67,
    endedBy: 'duration',
  }));
  const size = { width: 1920, height: 1080 };
  const timing = {
    v: 2,
    plays: [records],
    refreshMs: 16.67,
    timeOrigin: 1735689600000 + answeredAt,
    window: { inner: size, outer: size, screen: size, available: size, document: size, zoom: 1, isfullScreen: true },
    answeredMs: 1500 + media.length * 1000,
  };
  return { logs: 'inner:1920x1080;outer:1920x1080;screen:1920x1080;fullscreen:1', timing: JSON.stringify(timing) };
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/**
 * ACR: each stimulus has a true quality on 1..5 (uniform 1.3–4.7); each observer a bias N(0, 0.3) and an
 * inconsistency U(0.4, 1.0); a vote is round(quality + bias + inconsistency·N(0, 1)) clamped to 1..5, stored as the
 * dialog stores it (index 0 = Excellent). Stimuli are in 10 conditions (media attributes). One playlist per 50
 * observers, each a different order.
 */
export async function buildAcrJob(storage: Storage, spec: AcrJobSpec): Promise<{ truth: AcrTruth; rows: number }> {
  const random = createRandom(spec.seed);
  const media = Array.from({ length: spec.stimuli }, (_, i) => path('acr', i));
  const quality = new Map(media.map((m) => [m, 1.3 + 3.4 * random.next()]));
  const playlists = Math.max(1, Math.ceil(spec.observers / 50));
  await saveStudy(
    storage,
    {
      id: spec.jobId,
      media: 'media',
      job: jobFields('absolute_category_rating'),
      playlists: Array.from({ length: playlists }, () => ({ stimuli: shuffled(media, random).map((source) => ({ source })) })),
      mediaAttributes: Object.fromEntries(media.map((m, i) => [m, { condition: `c${i % 10}`, content: `content${Math.floor(i / 10)}` }])),
    },
    media.map((m) => ({ path: m, bytes: 1000 })),
    { source: `bench:${spec.jobId}` },
  );
  const sessions = await insertCompletedSessions(storage, spec.jobId, spec.observers, CREATED_AT);
  const stimuli = await stimuliByPlaylist(storage, spec.jobId);
  const sourceOf = new Map(stimuli.flat().map((s) => [s.id, (JSON.parse(s.spec) as { source: string }).source]));
  const writer = new BulkRatingWriter(storage);
  for (const [o, session] of sessions.entries()) {
    const bias = 0.3 * random.normal();
    const inconsistency = 0.4 + 0.6 * random.next();
    for (const { id: stimulusId } of stimuli[session.playlist]!) {
      const source = sourceOf.get(stimulusId)!;
      const score = clamp(Math.round(quality.get(source)! + bias + inconsistency * random.normal()), 1, 5);
      await writer.add({ session_id: session.id, stimulus_id: stimulusId, dedupe_key: `n:${stimulusId}`, value: 5 - score, nb_replay: 0, ...answerColumns([source], o), created_at: CREATED_AT });
    }
  }
  await writer.flush();
  return { truth: { quality }, rows: writer.count };
}

/**
 * Pair comparison: `stimuli` conditions with a true JOD scale spread evenly over 0–4 JOD (neighbours 4/(n−1) JOD
 * apart, the far ends ~99.7 % preferred), shuffled so that the scale is not the stimulus order. Each playlist holds
 * every pair once plus random extra pairs up to `comparisons`, in random order, half of them shown reversed.
 * Each answer follows Thurstone Case V: the first option wins with probability Φ((q_a − q_b)/1.4826); the stored
 * value is positional (0 = shown first), as the dialog stores it.
 */
export async function buildPairedJob(storage: Storage, spec: PairedJobSpec): Promise<{ truth: PairedTruth; rows: number }> {
  const random = createRandom(spec.seed);
  const media = Array.from({ length: spec.stimuli }, (_, i) => path('pair', i));
  const levels = shuffled(
    media.map((_, i) => (4 * i) / (spec.stimuli - 1)),
    random,
  );
  const jod = new Map(media.map((m, i) => [m, levels[i]!]));
  const allPairs = media.flatMap((a, i) => media.slice(i + 1).map((b) => [a, b] as const));
  const design = () => {
    const pairs = [...allPairs];
    while (pairs.length < spec.comparisons) pairs.push(allPairs[random.int(allPairs.length)]!);
    return shuffled(pairs, random).slice(0, spec.comparisons).map(([sourceA, sourceB]) => ({ sourceA, sourceB, reversed: random.next() < 0.5 }));
  };
  await saveStudy(
    storage,
    { id: spec.jobId, media: 'media', job: jobFields('pair_comparison'), playlists: Array.from({ length: spec.playlists }, () => ({ stimuli: design() })) },
    media.map((m) => ({ path: m, bytes: 1000 })),
    { source: `bench:${spec.jobId}` },
  );
  const sessions = await insertCompletedSessions(storage, spec.jobId, spec.observers, CREATED_AT);
  const stimuli = await stimuliByPlaylist(storage, spec.jobId);
  const shownOf = new Map(
    stimuli.flat().map((s) => {
      const { sourceA, sourceB, reversed } = JSON.parse(s.spec) as { sourceA: string; sourceB: string; reversed?: boolean };
      return [s.id, reversed ? [sourceB, sourceA] : [sourceA, sourceB]];
    }),
  );
  const writer = new BulkRatingWriter(storage);
  for (const [o, session] of sessions.entries()) {
    for (const { id: stimulusId } of stimuli[session.playlist]!) {
      const [first, second] = shownOf.get(stimulusId)!;
      const firstWins = random.next() < normalCdf((jod.get(first!)! - jod.get(second!)!) / JOD_SIGMA, 0, 1);
      await writer.add({ session_id: session.id, stimulus_id: stimulusId, dedupe_key: `n:${stimulusId}`, value: firstWins ? 0 : 1, nb_replay: 0, ...answerColumns([first!, second!], o), created_at: CREATED_AT });
    }
  }
  await writer.flush();
  return { truth: { jod }, rows: writer.count };
}

