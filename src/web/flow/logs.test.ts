import { describe, expect, it, vi } from 'vitest';
import type { SessionLogsBody } from '../../contract/payloads.js';
import { fitForBeacon, InteractionLogger } from './interactionLogger.js';
import { SessionLogsSender } from './logsSender.js';
import { parseQuery, playlistParams } from './query.js';

const TOKEN = 'abcdefghijklmnop1234';

function sender(post: () => Promise<boolean>, beacon: () => boolean, token: string | null = TOKEN) {
  const logger = new InteractionLogger({ now: () => 1000 });
  logger.logState('Landing', 'ok');
  return { logger, s: new SessionLogsSender(logger, () => token, { post: vi.fn(post), beacon: vi.fn(beacon) }) };
}

describe('session logs sender', () => {
  it('posts once, never again, and no beacon after', async () => {
    const post = vi.fn(async (_body: SessionLogsBody) => true);
    const beacon = vi.fn((_body: SessionLogsBody) => true);
    const s = new SessionLogsSender(new InteractionLogger(), () => TOKEN, { post, beacon });
    await s.send();
    await s.send();
    s.sendOnClose();
    expect(post).toHaveBeenCalledTimes(1);
    expect(post.mock.calls[0]![0]).toMatchObject({ sessionToken: TOKEN, logStates: [] });
    expect(beacon).not.toHaveBeenCalled();
  });

  it('lets the beacon send the logs when the post failed', async () => {
    const { s } = sender(async () => false, () => true);
    await s.send();
    expect(s.status).toBe('idle');
    s.sendOnClose();
    s.sendOnClose();
    expect(s.status).toBe('sent');
  });

  it('does not double a post still in flight with a beacon', () => {
    let release: (ok: boolean) => void = () => {};
    const beacon = vi.fn(() => true);
    const s = new SessionLogsSender(new InteractionLogger(), () => TOKEN, { post: () => new Promise((r) => (release = r)), beacon });
    void s.send();
    s.sendOnClose();
    expect(beacon).not.toHaveBeenCalled();
    release(true);
  });

  it('sends nothing without a session token', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const post = vi.fn(async () => true);
    const s = new SessionLogsSender(new InteractionLogger(), () => null, { post, beacon: () => true });
    await s.send();
    expect(post).not.toHaveBeenCalled();
    log.mockRestore();
  });
});

describe('beacon size', () => {
  it('thins the high-rate lists and keeps the states', () => {
    const many = <T>(n: number, f: (i: number) => T) => Array.from({ length: n }, (_, i) => f(i));
    const body: SessionLogsBody = {
      sessionToken: TOKEN,
      logStates: many(8, (i) => ({ state: 'Test', status: 'test', time: i })),
      logMouseMovement: many(5000, (i) => ({ posX: i, posY: i, time: 1_700_000_000_000 + i })),
      logMouseClick: many(10, (i) => ({ button: 0, component_id: 'vote-first', pageX: i, pageY: i, time: i })),
      logScroll: [],
      logKeyboard: [],
      logFocus: [],
      logDomSize: [],
    };
    const small = fitForBeacon(body, 60_000);
    expect(new TextEncoder().encode(JSON.stringify(small)).byteLength).toBeLessThanOrEqual(60_000);
    expect(small.logStates).toHaveLength(8);
    expect(small.logMouseClick).toHaveLength(10);
    expect(small.logMouseMovement.length).toBeGreaterThan(500);
    expect(small.logMouseMovement.at(-1)!.posX).toBe(4999);
  });
});

describe('query', () => {
  it('reads the page parameters and forwards the playlist and platform ones with bcheckId', () => {
    const q = parseQuery('?platform=mturk&vl=1&phone=1&workerId=W1&assignmentId=A1&hitId=H1&turkSubmitTo=https%3A%2F%2Fx&playlist_id=3&foo=bar&PROLIFIC_PID=P&STUDY_ID=S&SESSION_ID=X');
    expect(q).toMatchObject({ platform: 'mturk', vertical: true, horizontal: false, phone: true, email: null });
    expect(playlistParams(q, 42)).toEqual({
      platform: 'mturk',
      playlist_id: '3',
      assignmentId: 'A1',
      hitId: 'H1',
      workerId: 'W1',
      turkSubmitTo: 'https://x',
      PROLIFIC_PID: 'P',
      STUDY_ID: 'S',
      SESSION_ID: 'X',
      bcheckId: '42',
    });
    expect(playlistParams(parseQuery('?platform=unknown'), null)).toEqual({ platform: 'unknown' });
    expect(parseQuery('?platform=unknown').platform).toBe('prolific');
  });
});
