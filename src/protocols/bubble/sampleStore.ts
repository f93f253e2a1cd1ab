/**
 * The bubble's pointer samples (SPEC §3 gaze/blur stimulus: {x, y, t, vt}), in a zustand store updated from the
 * DOM pointer listener, never from a React render. Per pointer event every coalesced sample is appended (so a
 * 1000 Hz mouse gives 1000 samples per second even at 60 fps).
 *
 * The sample lists grow in place and `count` changes with every append: copying a list of thousands of samples on
 * each event (the immutable way) would cost O(n²) over a presentation. Readers take `samples()` at the end.
 */
import { createStore } from 'zustand/vanilla';
import type { MouseSample } from '../../contract/payloads.js';

/** The server takes at most this many samples per list (contract MAX_MOUSE_SAMPLES); later ones are dropped. */
export const MAX_SAMPLES_PER_MEDIA = 200_000;

export type MediaSlot = 'mediaA' | 'mediaB';

/** A pointer sample as the DOM gives it. */
export interface RawPointerSample {
  clientX: number;
  clientY: number;
  timeStamp: number;
}

export interface SampleState {
  /** Latest pointer sample (client px), recorded or not: the renderer draws the window there. */
  latest: RawPointerSample | null;
  /** The list being filled, or null between presentations. */
  recording: MediaSlot | null;
  /** event.timeStamp of the media onset: t = timeStamp - originMs. */
  originMs: number;
  /** Samples appended so far (changes on every append; lists are mutated in place). */
  count: number;
  lists: Record<MediaSlot, MouseSample[]>;
  /** Start (again) filling `slot` from an empty list; samples before `originMs` are not kept. */
  startRecording(slot: MediaSlot, originMs: number): void;
  stopRecording(): void;
  /** Both lists emptied (a new presentation of a stimulus). */
  reset(): void;
  /** Pointer samples of one event, oldest first; `toStimulus` maps client px to stimulus px. */
  append(samples: readonly RawPointerSample[], toStimulus: (clientX: number, clientY: number) => { x: number; y: number }): void;
  /** Copies of the two lists. */
  samples(): { mediaA: MouseSample[]; mediaB: MouseSample[] };
}

export type SampleStore = ReturnType<typeof createSampleStore>;

export function createSampleStore() {
  return createStore<SampleState>()((set, get) => ({
    latest: null,
    recording: null,
    originMs: 0,
    count: 0,
    lists: { mediaA: [], mediaB: [] },
    startRecording(slot, originMs) {
      const lists = { ...get().lists, [slot]: [] };
      set({ recording: slot, originMs, lists });
    },
    stopRecording() {
      set({ recording: null });
    },
    reset() {
      set({ recording: null, lists: { mediaA: [], mediaB: [] }, count: 0 });
    },
    append(samples, toStimulus) {
      if (samples.length === 0) return;
      const { recording, originMs, lists, count } = get();
      let added = 0;
      if (recording) {
        const list = lists[recording];
        for (const s of samples) {
          const t = s.timeStamp - originMs;
          // A sample older than the onset belongs to what was on screen before.
          if (t < 0 || list.length >= MAX_SAMPLES_PER_MEDIA) continue;
          // Coalesced samples can repeat a timestamp; t stays non-decreasing (the list is in event order).
          const { x, y } = toStimulus(s.clientX, s.clientY);
          list.push({ x, y, t, vt: 0 });
          added += 1;
        }
      }
      set({ latest: samples[samples.length - 1], count: count + added });
    },
    samples() {
      const { lists } = get();
      return { mediaA: [...lists.mediaA], mediaB: [...lists.mediaB] };
    },
  }));
}
