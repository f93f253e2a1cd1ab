/**
 * The camera poses of the 3D stimulus on screen (docs/3d-objects.md), in a zustand store fed by the stage's
 * `onCameraPose` callback on every drawn frame, never through a React render; the runner reads `record()` when the
 * stimulus is answered and posts it as the rating's `views`. The list grows in place (`count` changes with every
 * sample), as the bubble's pointer samples do: copying it on each frame would cost O(n²) over an inspection.
 */
import { createStore } from 'zustand/vanilla';
import { MAX_CAMERA_SAMPLES } from '../../contract/objects.js';
import type { CameraSample, ViewsRecord } from '../../contract/payloads.js';

export interface ViewsState {
  mode: ViewsRecord['mode'] | null;
  samples: CameraSample[];
  /** Samples kept so far (later ones beyond MAX_CAMERA_SAMPLES are dropped). */
  count: number;
  /** One drawn frame's pose during play number `play` (0 = the first play, then each replay). */
  append(play: number, sample: { mode: ViewsRecord['mode']; frame: number; t: number; az: number; el: number; dist: number }): void;
  /** A new stimulus: nothing recorded. */
  reset(): void;
  /** What is posted with the answer; null when no 3D object was drawn. */
  record(): ViewsRecord | null;
}

export type ViewsStore = ReturnType<typeof createViewsStore>;

export function createViewsStore() {
  return createStore<ViewsState>()((set, get) => ({
    mode: null,
    samples: [],
    count: 0,
    append(play, { mode, frame, t, az, el, dist }) {
      const { samples, count } = get();
      if (samples.length >= MAX_CAMERA_SAMPLES) return;
      samples.push({ play, frame, t, az, el, dist });
      set({ mode: get().mode ?? mode, count: count + 1 });
    },
    reset() {
      set({ mode: null, samples: [], count: 0 });
    },
    record() {
      const { mode, samples } = get();
      return mode ? { v: 1, mode, samples: [...samples] } : null;
    },
  }));
}
