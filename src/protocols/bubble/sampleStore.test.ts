import { describe, expect, it } from 'vitest';
import { createSampleStore, MAX_SAMPLES_PER_MEDIA } from './sampleStore.js';

const shift = (x: number, y: number) => ({ x: x - 100, y: y - 50 });

describe('bubble sample store', () => {
  it('keeps every sample while recording, in stimulus px, t from the onset, vt 0; always the latest', () => {
    const store = createSampleStore();
    store.getState().append([{ clientX: 110, clientY: 60, timeStamp: 900 }], shift);
    expect(store.getState().lists.mediaA).toEqual([]);
    expect(store.getState().latest).toEqual({ clientX: 110, clientY: 60, timeStamp: 900 });
    store.getState().startRecording('mediaA', 1000);
    // One event with three coalesced samples, one of them older than the onset.
    store.getState().append(
      [
        { clientX: 111, clientY: 61, timeStamp: 999.5 },
        { clientX: 112, clientY: 62, timeStamp: 1004 },
        { clientX: 113, clientY: 63, timeStamp: 1008.25 },
      ],
      shift,
    );
    expect(store.getState().samples().mediaA).toEqual([
      { x: 12, y: 12, t: 4, vt: 0 },
      { x: 13, y: 13, t: 8.25, vt: 0 },
    ]);
    expect(store.getState().count).toBe(2);
    store.getState().stopRecording();
    store.getState().append([{ clientX: 120, clientY: 70, timeStamp: 1100 }], shift);
    expect(store.getState().samples().mediaA).toHaveLength(2);
    store.getState().startRecording('mediaB', 2000);
    store.getState().append([{ clientX: 130, clientY: 80, timeStamp: 2010 }], shift);
    expect(store.getState().samples()).toEqual({ mediaA: [{ x: 12, y: 12, t: 4, vt: 0 }, { x: 13, y: 13, t: 8.25, vt: 0 }], mediaB: [{ x: 30, y: 30, t: 10, vt: 0 }] });
  });

  it('starting a list again empties it (recording for A restarts on its click); reset empties both', () => {
    const store = createSampleStore();
    store.getState().startRecording('mediaA', 0);
    store.getState().append([{ clientX: 0, clientY: 0, timeStamp: 5 }], shift);
    store.getState().startRecording('mediaA', 10);
    expect(store.getState().samples().mediaA).toEqual([]);
    store.getState().append([{ clientX: 0, clientY: 0, timeStamp: 15 }], shift);
    store.getState().reset();
    expect(store.getState().samples()).toEqual({ mediaA: [], mediaB: [] });
    expect(store.getState().recording).toBeNull();
  });

  it('notifies subscribers on each append, and stops at the server cap', () => {
    const store = createSampleStore();
    let calls = 0;
    store.subscribe(() => calls++);
    store.getState().startRecording('mediaA', 0);
    const many = Array.from({ length: MAX_SAMPLES_PER_MEDIA + 5 }, (_, i) => ({ clientX: i, clientY: 0, timeStamp: i }));
    store.getState().append(many, (x, y) => ({ x, y }));
    expect(store.getState().lists.mediaA).toHaveLength(MAX_SAMPLES_PER_MEDIA);
    expect(calls).toBe(2);
  });
});
