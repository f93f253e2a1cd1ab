import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pairComparison } from '../../protocols/pair/index.js';
import { startLiveServer, testWindow, type LiveServer } from '../../../testkit/liveServer.js';
import { AnswerPipeline } from './answers.js';
import { http } from './api.js';
import { startJourney } from './journey.js';
import { parseQuery } from './query.js';
import { createGlimpseStore, type GlimpseState, type GlimpseStore } from './store.js';

/**
 * The journey's effects (flow/journey.ts) against the real server over HTTP, driven only by the user events a
 * screen would dispatch: each phase's server calls happen on entering it, and what they answer lands in the store.
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

function until(store: GlimpseStore, done: (s: GlimpseState) => boolean, timeoutMs = 10_000): Promise<GlimpseState> {
  return new Promise((resolve, reject) => {
    if (done(store.getState())) return resolve(store.getState());
    const timer = setTimeout(() => reject(new Error(`timed out in phase ${store.getState().flow.phase}`)), timeoutMs);
    const stop = store.subscribe((s) => {
      if (!done(s)) return;
      clearTimeout(timer);
      stop();
      resolve(s);
    });
  });
}

const db = () => live.storage.db;

/** Reads until `done` (a visit's row is written while the page goes on). */
async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('participant journey', () => {
  it('job, browser check and visit, then on Continue the session, media, answers and the code, each on entering its phase', async () => {
    const win = testWindow({ mediaBase: live.url });
    const store = createGlimpseStore({ jobId: 'fixture-pair', protocol: pairComparison, query: parseQuery('?platform=prolific&PROLIFIC_PID=journey1') });
    const visitsBefore = await db().selectFrom('visits').select('id').where('job_id', '=', 'fixture-pair').execute();
    const stop = startJourney(store, { playlistQuery: Promise.resolve({}), win });
    try {
      // Landing -> Eligibility: the checks are measured, the browser check posted, and (all passed) the visit logged.
      const eligible = await until(store, (s) => s.bcheckId !== null);
      expect(eligible.flow.phase).toBe('Eligibility');
      expect(eligible.eligibility!.map((c) => [c.id, c.pass])).toEqual([
        ['browser', true],
        ['os', true],
        ['maxSize', true],
        ['minSize', true],
        ['zoom', true],
      ]);
      const bcheck = await db().selectFrom('bchecks').selectAll().where('id', '=', eligible.bcheckId!).executeTakeFirstOrThrow();
      expect(bcheck).toMatchObject({ b_name: 'Chrome', b_os: 'Linux', screen_size: '1920x1080' });
      const visits = await waitFor(() => db().selectFrom('visits').selectAll().where('job_id', '=', 'fixture-pair').where('id', 'not in', [0, ...visitsBefore.map((v) => v.id)]).execute(), (rows) => rows.length > 0);
      expect(visits.map((v) => [v.platform, v.started_at])).toEqual([['prolific', null]]);
      // Still on the eligibility screen: no session, so no playlist slot.
      expect(await db().selectFrom('session_identities').select('session_id').where('prolific_pid', '=', 'journey1').execute()).toEqual([]);
      expect(store.getState().playlist).toBeNull();

      // Continue: the session starts, with the browser check, and the visit is marked started.
      store.getState().dispatch({ type: 'ELIGIBILITY_PASSED' });
      const started = await until(store, (s) => s.playlist !== null);
      const session = await db().selectFrom('sessions').selectAll().where('id', '=', started.playlist!.session_id!).executeTakeFirstOrThrow();
      expect(session).toMatchObject({ bcheck_id: eligible.bcheckId, job_id: 'fixture-pair' });
      expect((await db().selectFrom('visits').select('started_at').where('id', '=', visits[0]!.id).executeTakeFirstOrThrow()).started_at).not.toBeNull();

      // The participant's clicks; Loading downloads every media and starts the test by itself.
      for (const type of ['WELCOME_DONE', 'INSTRUCTIONS_DONE'] as const) store.getState().dispatch({ type });
      const testing = await until(store, (s) => s.flow.phase === 'Test');
      expect([...testing.media!.keys()].sort()).toEqual([...started.playlist!.mediaRessources].sort());

      // Result waits for the answers, then the code comes.
      const pipeline = new AnswerPipeline(store, undefined, win);
      const stimuli = started.playlist!.stimulis as Array<{ stimuliId: number }>;
      const posts = stimuli.map((s) => pipeline.rating({ stimulusId: s.stimuliId, value: 0, nbReplay: 0, plays: [], refreshMs: 16.7 }));
      store.getState().dispatch({ type: 'TEST_DONE' });
      expect(await Promise.all(posts)).toEqual(['stored', 'stored']);
      const done = await until(store, (s) => typeof s.verificationCode === 'string');
      const completed = await db().selectFrom('sessions').select('verification_code').where('id', '=', session.id).executeTakeFirstOrThrow();
      expect(done.verificationCode).toBe(completed.verification_code);
    } finally {
      stop();
    }
  });

  it('the lab consent form is posted when signed, and the journey continues', async () => {
    const store = createGlimpseStore({
      jobId: 'fixture-pair',
      protocol: pairComparison,
      query: parseQuery('?platform=nantes&email=chloe%40univ-nantes.fr'),
    });
    const stop = startJourney(store, { playlistQuery: Promise.resolve({}), win: testWindow() });
    try {
      await until(store, (s) => s.eligibility !== null);
      store.getState().dispatch({ type: 'ELIGIBILITY_PASSED' });
      await until(store, (s) => s.playlist !== null);
      store.getState().dispatch({ type: 'WELCOME_DONE' });
      expect(store.getState().flow.instructionStep).toBe('consent');
      const form = {
        emailAddress: 'chloe@univ-nantes.fr',
        paraphe: 'CD',
        gender: 'Mme.' as const,
        name: 'Chloé',
        familyName: 'Dupré',
        birthCountry: 'France',
        birthDay: '1990-04-02',
        currentDate: { day: 2, month: 3, year: 2026 },
      };
      store.getState().dispatch({ type: 'CONSENT_SIGNED', form });
      await until(store, (s) => s.flow.instructionStep === 'instructions');
      const stored = await db().selectFrom('consents').selectAll().where('email', '=', 'chloe@univ-nantes.fr').execute();
      expect(stored.map((c) => [c.name, c.family_name, c.signed_on])).toEqual([['Chloé', 'Dupré', '2026-03-02']]);
    } finally {
      stop();
    }
  });

  it('a study whose playlists all have their observers ends on the study-full screen on Continue, with no session', async () => {
    await db().updateTable('jobs').set({ quality: JSON.stringify({ targetAcceptedPerPlaylist: 1 }) }).where('id', '=', 'fixture-pair').execute();
    try {
      // Two participants take the two playlists' places.
      for (const pid of ['full1', 'full2']) await http.get(`${live.url}/api/getrandomtasks/fixture-pair`, { params: { platform: 'prolific', PROLIFIC_PID: pid } }).catch(() => undefined);
      const store = createGlimpseStore({ jobId: 'fixture-pair', protocol: pairComparison, query: parseQuery('?platform=prolific&PROLIFIC_PID=full3') });
      const stop = startJourney(store, { playlistQuery: Promise.resolve({}), win: testWindow({ mediaBase: live.url }) });
      try {
        // The visit holds nothing, so fullness is decided when the session would start.
        await until(store, (s) => s.eligibility !== null);
        store.getState().dispatch({ type: 'ELIGIBILITY_PASSED' });
        const failed = await until(store, (s) => s.flow.phase === 'Fail');
        expect([failed.flow.failReason, failed.playlist]).toEqual(['studyFull', null]);
        const sessions = await db().selectFrom('session_identities').select('session_id').where('prolific_pid', '=', 'full3').execute();
        expect(sessions).toEqual([]);
      } finally {
        stop();
      }
    } finally {
      await db().updateTable('jobs').set({ quality: null }).where('id', '=', 'fixture-pair').execute();
    }
  });

  it('a job that does not load ends on the failure screen without asking for anything else', async () => {
    const store = createGlimpseStore({ jobId: 'no-such-job', protocol: pairComparison, query: parseQuery('') });
    const before = await db().selectFrom('bchecks').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const stop = startJourney(store, { playlistQuery: Promise.resolve({}), win: testWindow() });
    try {
      const failed = await until(store, (s) => s.flow.phase === 'Fail');
      expect(failed.flow.failReason).toBe('server');
      const after = await db().selectFrom('bchecks').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
    } finally {
      stop();
    }
  });
});
