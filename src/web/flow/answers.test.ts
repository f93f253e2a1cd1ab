import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BubbleScreeningBody, RatingBody } from '../../contract/payloads.js';
import type { PlaylistResponse, PlaylistStimulus } from '../../contract/playlist.js';
import { pairComparison } from '../../protocols/pair/index.js';
import { startLiveServer, testWindow, type LiveServer } from '../../../testkit/liveServer.js';
import { AnswerPipeline, type AnswerTransport } from './answers.js';
import { http, postRating, postScreening } from './api.js';
import { parseQuery } from './query.js';
import { createGlimpseStore, type GlimpseStore } from './store.js';

/**
 * The answer pipeline against the real server (Fastify, SQLite) over real HTTP (axios's node adapter): what is
 * stored for a rating, the key policy across retries and re-submits, training and preview rules, and the saving
 * state the page shows.
 */

let live: LiveServer;
beforeAll(async () => {
  live = await startLiveServer();
  http.defaults.baseURL = live.url;
});
afterAll(async () => {
  http.defaults.baseURL = undefined;
  await live.close();
});

const win = testWindow();
const record = { label: 'AB', media: ['fixture-pair/red.png', 'fixture-pair/green.png'], requestedFrames: 60, shownFrames: 60, onsetMs: 10, offsetMs: 1010, droppedFrames: 0, refreshMs: 16.67 };

async function storeWithSession(query = '?platform=prolific'): Promise<{ store: GlimpseStore; playlist: PlaylistResponse<PlaylistStimulus> }> {
  const store = createGlimpseStore({ jobId: 'fixture-pair', protocol: pairComparison, query: parseQuery(query) });
  const playlist = (await http.get<PlaylistResponse<PlaylistStimulus>>(`/api/getrandomtasks/fixture-pair${query}`)).data;
  store.getState().set({ playlist });
  return { store, playlist };
}

/** The real transport, with the first `failures` calls refused as a network error would be; every key seen. */
function flakyTransport(failures: number) {
  const keys: string[] = [];
  let left = failures;
  const fail = () => Promise.reject(Object.assign(new Error('network down'), { isAxiosError: true }));
  const transport: AnswerTransport = {
    rating: (body: RatingBody, key: string) => (keys.push(key), left-- > 0 ? fail() : postRating(body, key)),
    screening: (body: BubbleScreeningBody, key: string) => (keys.push(key), left-- > 0 ? fail() : postScreening(body, key)),
  };
  return { transport, keys };
}

const ratingsOf = (sessionId: number) => live.storage.db.selectFrom('ratings').selectAll().where('session_id', '=', sessionId).orderBy('id').execute();

describe('answer pipeline', () => {
  it('stores a rating with the SPEC size text in logs and the timing envelope beside it', async () => {
    const { store, playlist } = await storeWithSession();
    const pipeline = new AnswerPipeline(store, undefined, win);
    const stimulus = playlist.stimulis[0]!;
    const outcome = await pipeline.rating({ stimulusId: stimulus.stimuliId, value: 1, nbReplay: 1, plays: [[record], [record]], refreshMs: 16.67 });
    expect(outcome).toBe('stored');
    const [row] = await ratingsOf(playlist.session_id!);
    expect(row).toMatchObject({ stimulus_id: stimulus.stimuliId, value: 1, nb_replay: 1, logs: 'inner:1280x720;outer:1280x800;screen:1920x1080;fullscreen:0' });
    const timing = JSON.parse(row!.timing!);
    expect(timing).toMatchObject({ v: 2, refreshMs: 16.67, plays: [[record], [record]], window: { inner: { width: 1280, height: 720 }, zoom: 100 } });
    expect(timing.timeOrigin).toBeGreaterThan(0);
    // When the answer was given, on the records' clock (quality control's minimum trial time reads it).
    expect(timing.answeredMs).toBeGreaterThan(0);
    expect(timing.answeredMs).toBeLessThanOrEqual(performance.now());
    expect(store.getState()).toMatchObject({ unsavedAnswers: 0, saveTrouble: false });
  });

  it('retries a failed post with the same key; a re-submit of the same presentation reuses it and stores nothing twice', async () => {
    const { store, playlist } = await storeWithSession();
    const { transport, keys } = flakyTransport(4);
    const pipeline = new AnswerPipeline(store, transport, win);
    const answer = { stimulusId: playlist.stimulis[0]!.stimuliId, value: 0, nbReplay: 0, plays: [[record]], refreshMs: 16.67, extras: { oit: 2 } };
    // The transport fails each try the caller makes here (retries live in postRating: a failed call fails once).
    for (let i = 0; i < 4; i++) expect(await pipeline.rating(answer)).toBe('failed');
    expect(store.getState().saveTrouble).toBe(true);
    expect(await ratingsOf(playlist.session_id!)).toEqual([]);
    expect(await pipeline.rating(answer)).toBe('stored');
    expect(await pipeline.rating(answer)).toBe('stored');
    expect(new Set(keys).size).toBe(1);
    const rows = await ratingsOf(playlist.session_id!);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.logs).toBe('inner:1280x720;outer:1280x800;screen:1920x1080;fullscreen:0;oit:2');
    expect(store.getState()).toMatchObject({ unsavedAnswers: 0, saveTrouble: false });
    // A replay is another presentation: another key.
    const { transport: other, keys: otherKeys } = flakyTransport(0);
    const second = new AnswerPipeline(store, other, win);
    await second.rating({ ...answer, nbReplay: 1 });
    expect(otherKeys[0]).not.toBe(keys[0]);
  });

  it('sends nothing in training, nor without a session (MTurk preview)', async () => {
    const { store, playlist } = await storeWithSession();
    const { transport, keys } = flakyTransport(0);
    const training = { ...store.getState().flow, training: 'running' as const };
    store.setState({ flow: training });
    const pipeline = new AnswerPipeline(store, transport, win);
    expect(await pipeline.rating({ stimulusId: playlist.stimulis[0]!.stimuliId, value: 1, nbReplay: 0, plays: [], refreshMs: null })).toBe('training');
    const preview = createGlimpseStore({ jobId: 'fixture-pair', protocol: pairComparison, query: parseQuery('?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE') });
    preview.getState().set({ playlist: { ...playlist, session_id: null, sessionToken: null } });
    expect(await new AnswerPipeline(preview, transport, win).rating({ stimulusId: playlist.stimulis[0]!.stimuliId, value: 1, nbReplay: 0, plays: [], refreshMs: null })).toBe('no-session');
    expect(keys).toEqual([]);
    expect(await ratingsOf(playlist.session_id!)).toEqual([]);
  });

  it('records a media error in the envelope and media:missing in the logs', async () => {
    const { store, playlist } = await storeWithSession();
    const pipeline = new AnswerPipeline(store, undefined, win);
    await pipeline.rating({ stimulusId: playlist.stimulis[1]!.stimuliId, value: 0, nbReplay: 0, plays: [[]], refreshMs: 16.67, mediaError: 'fixture-pair/blue.png: missing' });
    const [row] = await ratingsOf(playlist.session_id!);
    expect(row!.logs).toMatch(/;media:missing$/);
    expect(JSON.parse(row!.timing!).mediaError).toBe('fixture-pair/blue.png: missing');
  });
});
