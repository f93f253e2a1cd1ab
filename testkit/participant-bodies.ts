/**
 * What a participant's page posts, as plain bodies (no test runner imported: vitest, Playwright and the benches
 * all post them): the browser check, the session logs, a timing envelope.
 */

export const BCHECK = { b_name: 'Firefox', b_version: '128.0', b_os: 'Windows', screen_size: '1920x1080' };

/** A session-logs post with these states (by default the result page's) and no other log. */
export const sessionLogsOf = (token: string, logStates: Array<{ state: string; status: string; time: number }> = [{ state: 'Result', status: 'ok', time: 5 }]) => ({
  sessionToken: token,
  logStates,
  logMouseMovement: [],
  logMouseClick: [],
  logScroll: [],
  logKeyboard: [],
  logFocus: [],
  logDomSize: [],
});

const SIZE = { width: 1280, height: 720 };

/**
 * A timing envelope as the page posts it (contract TimingEnvelope): one play of one exactly timed media step,
 * answered `answerAfterMs` after its onset, in fullscreen unless told otherwise.
 */
export function timingEnvelopeOf(opts: { media?: string; answerAfterMs?: number; fullscreen?: boolean; droppedFrames?: number; step?: Record<string, unknown> } = {}) {
  const onsetMs = 1000;
  return {
    v: 2,
    plays: [[{ label: 'stimulus', media: [opts.media ?? 'm.png'], requestedFrames: 60, shownFrames: 60, onsetMs, offsetMs: onsetMs + 1000, droppedFrames: opts.droppedFrames ?? 0, refreshMs: 16.667, endedBy: 'duration', ...opts.step }]],
    refreshMs: 16.667,
    timeOrigin: 1_700_000_000_000,
    answeredMs: onsetMs + (opts.answerAfterMs ?? 2500),
    window: { inner: SIZE, outer: SIZE, screen: SIZE, available: SIZE, document: SIZE, zoom: 1, isfullScreen: opts.fullscreen ?? true },
  };
}
