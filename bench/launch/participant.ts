import { Agent } from 'node:http';
import { PROTOCOLS } from '../../src/protocols/registry.js';
import { BCHECK, timingEnvelopeOf } from '../../testkit/participants.js';
import { send, sleep, type Answer } from '../shared/measure.js';

/**
 * One simulated participant of bench:launch: a sequential client sending what the page sends, in the page's order
 * (src/web/flow/journey.ts): the page and its scripts (index.html, the entry files it names, then the chunks the
 * journey loads lazily), the job, the browser check, the visit, the playlist (the session), every media file once, then per stimulus a
 * think time and the answer with its timing envelope (a bubble participant first posts the play's mouse log,
 * 100–500 KB), and at the end the session logs and the code together. Every request is recorded with its route.
 * Its requests go over kept connections, as a browser's do.
 */

export interface Request {
  route: string;
  status: number;
  ms: number;
  /** When the answer came, ms since the run's start. */
  at: number;
}

export interface Acknowledged {
  ratings: number[];
  screenings: number[];
  sessionLogs: number[];
}

export interface Journey {
  base: string;
  jobId: string;
  playlistPath: string;
  pid: string;
  bubble: boolean;
  /** Mean think time per stimulus, ms (exponential). */
  thinkMs: number;
  /** The web app's files as the page loads them (static routes). */
  pageFiles: string[];
  random: () => number;
  startedAt: number;
  /** The value answered for a stimulus of the playlist (default: uniform over the scale); bench/adaptive's observers. */
  answer?: (stimulus: Record<string, unknown>) => number;
}

export interface Outcome {
  jobId: string;
  requests: Request[];
  acknowledged: Acknowledged;
  /** When the code came, ms since the run's start; null when it did not. */
  completedAt: number | null;
}

/** Each (route, error status) is explained once on stderr. */
const explained = new Set<string>();

const BR = { 'accept-encoding': 'br, gzip' };
/** The participant page of a playlist route: the route of the protocol (table) that serves it. */
const pageOf = (playlistPath: string) => Object.values(PROTOCOLS).find((p) => p.playlistPath === playlistPath)!.route;

/** A bubble play's mouse samples, 100–500 KB of JSON over the two sides. */
function mouseLog(random: () => number) {
  const samples = Math.round((100_000 + random() * 400_000) / 55);
  const side = (n: number) => Array.from({ length: n }, (_, i) => ({ x: 400 + random() * 200, y: 300 + random() * 100, t: 1000 + i * 8.3, vt: 1000 + i * 8.3 }));
  return { mediaA: side(Math.floor(samples / 2)), mediaB: side(Math.ceil(samples / 2)) };
}

export async function runJourney(j: Journey): Promise<Outcome> {
  // The participant's browser keeps its connections to the server open (HTTP/1.1 keep-alive, at most 6 per host).
  const browser = new Agent({ keepAlive: true, maxSockets: 6 });
  try {
    return await journey(j, browser);
  } finally {
    browser.destroy();
  }
}

async function journey(j: Journey, browser: Agent): Promise<Outcome> {
  const requests: Request[] = [];
  const acknowledged: Acknowledged = { ratings: [], screenings: [], sessionLogs: [] };
  const record = (route: string, a: Answer) => {
    if ((a.status === 0 || a.status >= 400) && !explained.has(`${route} ${a.status}`)) {
      explained.add(`${route} ${a.status}`);
      console.error(`first ${a.status} on ${route}: ${a.body.slice(0, 300)}`);
    }
    requests.push({ route, status: a.status, ms: a.ms, at: performance.now() - j.startedAt });
    return a;
  };
  const call = (route: string, path: string, opts: Parameters<typeof send>[1] = {}) => send(`${j.base}${path}`, { ...opts, agent: browser }).then((a) => record(route, a));
  const think = () => sleep(-Math.log(1 - j.random()) * j.thinkMs);

  for (const file of j.pageFiles) await call(file === '/' ? 'page' : 'static', file === '/' ? `/${pageOf(j.playlistPath)}/${j.jobId}` : file, { headers: BR });
  if ((await call('job', `/api/jobs/${j.jobId}`)).status !== 200) return { jobId: j.jobId, requests, acknowledged, completedAt: null };
  const bcheck = await call('bcheck', '/api/bchecks/', { method: 'POST', body: BCHECK });
  const bcheckId = bcheck.status === 201 ? (JSON.parse(bcheck.body) as { id: number }).id : null;
  const query = `platform=prolific&PROLIFIC_PID=${j.pid}&STUDY_ID=launch&SESSION_ID=${j.pid}${bcheckId ? `&bcheckId=${bcheckId}` : ''}`;
  // The visit while the eligibility checks are read, then the session on Continue (docs/data-safety.md "Participant
  // continuity").
  const visitAnswer = await call('visit', `/api/visits/${j.jobId}?${query}`, { method: 'POST' });
  if (visitAnswer.status !== 201) return { jobId: j.jobId, requests, acknowledged, completedAt: null };
  const visit = (JSON.parse(visitAnswer.body) as { visit: string }).visit;
  const playlistAnswer = await call('playlist', `/api/${j.playlistPath}/${j.jobId}?${query}&visit=${visit}`);
  if (playlistAnswer.status !== 200) return { jobId: j.jobId, requests, acknowledged, completedAt: null };
  const playlist = JSON.parse(playlistAnswer.body) as { session_id: number; sessionToken: string; mediaRessources: string[]; stimulis: Array<{ stimuliId?: number; stimuli_id?: number; source?: string; sourceA?: { source: string } }> };
  for (const media of playlist.mediaRessources) await call('media', `/resmedias/${media.split('/').map(encodeURIComponent).join('/')}`);

  for (const [k, s] of playlist.stimulis.entries()) {
    await think();
    // The bubble playlist names its ids as SPEC §7 does (stimuli_id), the others stimuliId.
    const common = { stimuli_id: s.stimuliId ?? s.stimuli_id, session_id: playlist.session_id, session_token: playlist.sessionToken };
    const timing = timingEnvelopeOf({ media: s.source ?? s.sourceA?.source });
    if (j.bubble) {
      const screening = await call('screening', '/api/bubblescreenings/', { method: 'POST', body: { ...common, mouse_logs: mouseLog(j.random), screening_no: 0, logs: null, timing }, headers: { 'idempotency-key': `${j.pid}-m${k}` } });
      if (screening.status === 201 || screening.status === 200) acknowledged.screenings.push((JSON.parse(screening.body) as { id: number }).id);
    }
    const value = j.answer ? j.answer(s as Record<string, unknown>) : Math.floor(j.random() * (j.bubble ? 2 : 5));
    const rating = await call('rating', '/api/ratings/', { method: 'POST', body: { ...common, value, nbReplay: 0, logs: 'inner:1280x720;outer:1280x720;screen:1920x1080;fullscreen:0', timing }, headers: { 'idempotency-key': `${j.pid}-r${k}` } });
    if (rating.status === 201 || rating.status === 200) acknowledged.ratings.push((JSON.parse(rating.body) as { id: number }).id);
  }

  // The page posts its logs as it asks for the code (journey.ts: Result entered).
  const logs = {
    sessionToken: playlist.sessionToken,
    logStates: [
      { state: 'Eligibility', status: 'checks', time: 1 },
      { state: 'Instruction', status: 'welcome', time: 2 },
      { state: 'Result', status: 'ok', time: 3 },
    ],
    logMouseMovement: Array.from({ length: 200 }, (_, i) => ({ posX: i, posY: i, time: 10 + i })),
    logMouseClick: [],
    logScroll: [],
    logKeyboard: [],
    logFocus: [],
    logDomSize: [],
  };
  const [code, posted] = await Promise.all([call('code', `/api/sessions/token/${playlist.sessionToken}`), call('sessionlogs', '/api/sessionlogs/', { method: 'POST', body: logs })]);
  if (posted.status === 201) acknowledged.sessionLogs.push((JSON.parse(posted.body) as { id: number }).id);
  return { jobId: j.jobId, requests, acknowledged, completedAt: code.status === 200 ? performance.now() - j.startedAt : null };
}
