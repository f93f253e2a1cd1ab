import type { BubbleScreeningBody, MouseSample, RatingBody, ViewsRecord } from '../../contract/payloads.js';
import { isPermanentAnswerFailure, postRating, postScreening, type RatingAck } from './api.js';
import { openOutbox, type Outbox } from './outbox.js';
import { inTraining } from './phases.js';
import { windowSizeLog } from './sizeLog.js';
import type { GlimpseStore } from './store.js';
import { timingEnvelope, type TimingInput } from './timingEnvelope.js';
import { newUuid } from './uuid.js';

/**
 * The one answer pipeline of every protocol: what a runner hands over when a presentation has been answered, and
 * everything that happens to it before the server has it.
 *
 * - Nothing is sent in training (SPEC §4) nor without a session (an MTurk preview).
 * - Idempotency keys: one per answered presentation (stimulus, play number, kind). Every retry and every manual
 *   re-submit of the same presentation reuses it, so the server never stores it twice.
 * - Retries: transient failures (network, 5xx, 429) are tried 3 times with back-off (api.ts).
 * - The outbox (outbox.ts): each answer is in IndexedDB from before its post until the server acknowledges it;
 *   `drain()` sends what an earlier page, or a failed post, left there (page load, back online, before the code).
 * - An answer the server already has for that presentation (409 ALREADY_ANSWERED) counts as saved: the first one
 *   counts, the page moves on and says which answer that is (`keptAnswer`).
 * - Every answer carries the SPEC size text in `logs` (with the protocol's extras) and the timing envelope of every
 *   play that led to it in `timing` (timingEnvelope.ts), media errors included.
 * - The store counts answers not yet acknowledged (the end screen waits for them) and raises `saveTrouble` when a
 *   post failed after its retries (the page tells the participant it is still saving).
 */

export type AnswerOutcome =
  /** The server has it: advance. */
  | 'stored'
  /** Training: nothing to send; advance. */
  | 'training'
  /** No session (MTurk preview): nothing sent; stay. */
  | 'no-session'
  /** The post failed after its retries: stay on the stimulus, the same answer can be sent again. */
  | 'failed';

export interface RatingAnswer extends TimingInput {
  stimulusId: number;
  value: number;
  /** The play answered: 0 for the first, then the replay or repetition number (SPEC nbReplay). */
  nbReplay: number;
  /** The camera poses of a 3D stimulus (docs/3d-objects.md); absent for images and videos. */
  views?: ViewsRecord | null;
}

export interface ScreeningAnswer extends TimingInput {
  stimulusId: number;
  /** The play these samples were recorded in (0 for the first). */
  screeningNo: number;
  mouseLogs: { mediaA: MouseSample[]; mediaB: MouseSample[] };
}

export interface AnswerTransport {
  rating(body: RatingBody, key: string): Promise<unknown>;
  screening(body: BubbleScreeningBody, key: string): Promise<unknown>;
}

const HTTP: AnswerTransport = { rating: postRating, screening: postScreening };

export class AnswerPipeline {
  private readonly keys = new Map<string, string>();
  /** The body first built for each presentation, with the answer it carries. */
  private readonly bodies = new Map<string, { answered: string; payload: unknown }>();

  private draining: Promise<number> | null = null;

  constructor(
    private readonly store: GlimpseStore,
    private readonly transport: AnswerTransport = HTTP,
    private readonly win: Window = window,
    private readonly outbox: Outbox = openOutbox(win),
  ) {}

  /**
   * Sends every answer waiting in the outbox (left by an earlier page or a failed post) with its own key, oldest
   * first; resolves with how many are still waiting. One drain at a time.
   */
  drain(): Promise<number> {
    this.draining ??= (async () => {
      try {
        for (const entry of await this.outbox.entries()) {
          try {
            await (this.transport[entry.kind] as (b: unknown, k: string) => Promise<unknown>)(entry.body, entry.key);
            await this.outbox.remove(entry.key);
          } catch (error) {
            // The session is gone or not this token's: no retry can store it.
            if (isPermanentAnswerFailure(error)) {
              console.log(`${entry.kind} dropped from the outbox: the server refuses it for good`, error);
              await this.outbox.remove(entry.key);
            } else console.log(`${entry.kind} still waiting in the outbox`, error);
          }
        }
        return (await this.outbox.entries()).length;
      } finally {
        this.draining = null;
      }
    })();
    return this.draining;
  }

  /** Drains until nothing waits (the code must not be asked before), saying so while it takes long. */
  async drainUntilEmpty(signal: AbortSignal): Promise<void> {
    for (let attempt = 0; !signal.aborted; attempt++) {
      if ((await this.drain()) === 0) {
        if (attempt > 0) this.store.getState().setSaving({ saveTrouble: false });
        return;
      }
      this.store.getState().setSaving({ saveTrouble: true });
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000 * 2 ** attempt, 10_000)));
    }
  }

  rating(answer: RatingAnswer): Promise<AnswerOutcome> {
    return this.send('rating', answer.stimulusId, answer.nbReplay, String(answer.value), (session) => ({
      stimuli_id: answer.stimulusId,
      ...session,
      value: answer.value,
      nbReplay: answer.nbReplay,
      logs: windowSizeLog(this.win, logExtras(answer)),
      timing: timingEnvelope(answer, this.win),
      ...(answer.views ? { views: answer.views } : {}),
    }));
  }

  screening(answer: ScreeningAnswer): Promise<AnswerOutcome> {
    return this.send('screening', answer.stimulusId, answer.screeningNo, 'samples', (session) => ({
      stimuli_id: answer.stimulusId,
      ...session,
      mouse_logs: answer.mouseLogs,
      screening_no: answer.screeningNo,
      logs: null,
      timing: timingEnvelope(answer, this.win),
    }));
  }

  private async send<K extends 'rating' | 'screening'>(
    kind: K,
    stimulusId: number,
    presentation: number,
    /** What the participant answered: a re-submit of the same answer re-sends the very same body. */
    answered: string,
    body: (session: { session_id: number; session_token: string }) => Parameters<AnswerTransport[K]>[0],
  ): Promise<AnswerOutcome> {
    const { flow, playlist, setSaving } = this.store.getState();
    if (inTraining(flow)) return 'training';
    if (!playlist?.session_id || !playlist.sessionToken) {
      console.log(`${kind} not sent: no session (MTurk preview?)`);
      return 'no-session';
    }
    const id = `${kind}:${stimulusId}:${presentation}`;
    const key = this.keys.get(id) ?? newUuid();
    this.keys.set(id, key);
    // The same answer re-sent after a failure must be byte-identical (answer time and window sizes included), so the
    // server recognises a replay of what it may already have stored; a changed answer gets a new body.
    const cached = this.bodies.get(id);
    const payload = cached?.answered === answered ? cached.payload : body({ session_id: playlist.session_id, session_token: playlist.sessionToken });
    this.bodies.set(id, { answered, payload });
    setSaving({ unsavedAnswers: this.store.getState().unsavedAnswers + 1 });
    try {
      await this.outbox.put({ key, kind, body: payload as RatingBody | BubbleScreeningBody, queuedAt: Date.now() });
    } catch (error) {
      console.log('the answer could not be written to the outbox; posting it anyway', error);
    }
    try {
      const ack = (await (this.transport[kind] as (b: typeof payload, k: string) => Promise<unknown>)(payload, key)) as RatingAck;
      console.log(`${kind} stored`, ack);
      const kept = ack?.alreadyAnswered?.value;
      if (kind === 'rating' && kept !== undefined && String(kept) !== answered) this.store.getState().setSaving({ keptAnswer: { stimulusId, value: kept } });
      await this.outbox.remove(key).catch((error: unknown) => console.log('outbox entry not removed (a later drain replays it harmlessly)', error));
      // Mouse logs can be megabytes: once stored, nothing re-sends them.
      if (kind === 'screening') this.bodies.delete(id);
      this.store.getState().setSaving({ saveTrouble: false });
      return 'stored';
    } catch (error) {
      // SPEC §4 step 6 and §8: only logged; the runner keeps the stimulus and the participant can send again.
      console.log(`${kind} post failed`, error);
      this.store.getState().setSaving({ saveTrouble: true });
      return 'failed';
    } finally {
      this.store.getState().setSaving({ unsavedAnswers: this.store.getState().unsavedAnswers - 1 });
    }
  }
}

/** The `key:value` fields after the SPEC size text: the protocol's extras, and `media:missing` when a media failed. */
function logExtras(answer: TimingInput): Record<string, string> {
  const extras = Object.fromEntries(Object.entries(answer.extras ?? {}).map(([k, v]) => [k, String(v)]));
  return answer.mediaError ? { ...extras, media: 'missing' } : extras;
}

/** One pipeline per page store (its keys must outlive the components that post). */
const pipelines = new WeakMap<GlimpseStore, AnswerPipeline>();
export function answerPipelineOf(store: GlimpseStore, win?: Window): AnswerPipeline {
  let pipeline = pipelines.get(store);
  if (!pipeline) pipelines.set(store, (pipeline = new AnswerPipeline(store, HTTP, win ?? window)));
  return pipeline;
}
