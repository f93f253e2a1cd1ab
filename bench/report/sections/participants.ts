import { blocks, day, num, table, yesNo } from '../markdown.js';
import { resultDate, runLine, type Results, type Stamped } from '../results.js';
import type { BenchSection } from '../section.js';

interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
}
/** Answers by HTTP status ("0": the connection closed before an answer; "-1": still sending when stopped). */
type Answers = Record<string, number>;
/** Participants' writes while an attack ran, against an idle run of the same node just before. */
interface UnderAttack<Outcome> {
  idle: { ratings: Summary; logs: Summary };
  during: { ratings: Summary; logs: Summary };
  p99Ratio: { ratings: number; logs: number };
  rssMb: { before: number; peak: number; after: number };
  outcome: Outcome;
}
interface ProxyRun {
  floodRequests: number;
  floodSeconds: number;
  flood: Answers;
  researcherSignIn: number;
  newParticipantPlaylist: number;
}
interface ParticipantsResult extends Stamped {
  signInFlood: {
    idle: Summary;
    flood: Summary;
    p99Ratio: number;
    signIns: Answers;
    researcherSignInMs: { alone: Summary; duringFlood: Summary };
  };
  junkRatingBodies: { bodyBytes: number; idle: Summary; during: Summary; answers: Answers };
  behindNginx: { trustProxy: ProxyRun; noTrustProxy: ProxyRun } | string;
  lockRace: { attempts: number; passwordChecks: number; rightOne: number; sameAnswerAsAWrongOne: boolean };
  streamAfterSignOut: { statsBeforeSignOut: number; statsAfterSignOut: number; ended: boolean };
  firstAdministratorPostgres: { rounds: number; concurrentCreations: number; roundsWithExactlyOneAdministrator: number };
  logQuota: Record<'sqlite' | 'postgres', { posts: number; answers: Answers; stored: number }>;
  anonymousLargeBodies?: UnderAttack<{ bodies: number; answers: Answers }>;
  slowSenders?: UnderAttack<{ senders: number; answers: Answers }>;
  cliImport?: { stimuli: number; created: UnderAttack<{ code: number | null; seconds: number }>; unchanged: UnderAttack<{ code: number | null; seconds: number }> };
  consoleUpload?: {
    stimuli: number;
    created: UnderAttack<{ status: number; seconds: number; zipMb: number }>;
    unchanged: UnderAttack<{ status: number; seconds: number; zipMb: number }>;
  };
}

const FILE = 'participants.json';
/** The issue's target for the four rows it names: participants' p99 within this many times idle. */
const TARGET_P99_RATIO = 3;

/**
 * Answers as "277 checked (401), 323 refused at once (503)": `meaning` names a status in its row's words; "0" (closed
 * before an answer) and "-1" (still sending when stopped) are the bench's own codes.
 */
const answers = (counts: Answers, meaning: Record<string, string> = {}) =>
  Object.entries(counts)
    .map(([status, n]) => {
      const bench = status === '0' ? 'closed unread' : status === '-1' ? 'still sending when stopped' : undefined;
      return `${num(n)} ${meaning[status] ?? bench ?? 'answered'}${bench ? '' : ` (${status})`}`;
    })
    .join(', ');
const QUOTA_ANSWERS = { '201': 'accepted', '429': 'over the quota' };
const total = (counts: Answers) => Object.values(counts).reduce((sum, n) => sum + n, 0);

/** A row of issue 34: participants' rating and log p99 against idle, and the server's memory. */
const attackCell = (row: UnderAttack<unknown>) =>
  `ratings p99 **${num(row.during.ratings.p99, 1)} ms** vs ${num(row.idle.ratings.p99, 1)} ms idle (× ${num(row.p99Ratio.ratings, 1)}), ` +
  `session logs p99 ${num(row.during.logs.p99, 1)} vs ${num(row.idle.logs.p99, 1)} ms (× ${num(row.p99Ratio.logs, 1)}); ` +
  `RSS ${num(row.rssMb.before)} → peak ${num(row.rssMb.peak)} → ${num(row.rssMb.after)} MB`;

function rows(p: ParticipantsResult): string[][] {
  const flood = p.signInFlood;
  const junk = p.junkRatingBodies;
  const out: string[][] = [
    [
      `${num(total(flood.signIns))} sign-ins of unknown e-mails from 30 addresses: participants' rating p99`,
      `**${num(flood.flood.p99, 1)} ms** vs ${num(flood.idle.p99, 1)} ms idle (× ${num(flood.p99Ratio, 1)}); p50 ` +
        `${num(flood.flood.p50, 1)} vs ${num(flood.idle.p50, 1)} ms. Sign-ins: ${answers(flood.signIns, { '401': 'checked', '503': 'refused at once' })}`,
    ],
    [
      "The researcher's sign-in from a known browser during that flood",
      `max **${num(flood.researcherSignInMs.duringFlood.max)} ms** over ${num(flood.researcherSignInMs.duringFlood.n)} ` +
        `(alone: max ${num(flood.researcherSignInMs.alone.max)} ms over ${num(flood.researcherSignInMs.alone.n)})`,
    ],
    [
      `20 × ${num(junk.bodyBytes / 1000)} KB rating bodies of 45,000 unknown keys at once, 3 rounds: \`/meta.json\``,
      `p99 **${num(junk.during.p99, 1)} ms** over ${num(junk.during.n)} probes (idle p99 ${num(junk.idle.p99, 1)} ms over ` +
        `${num(junk.idle.n)}); ${answers(junk.answers, { '401': 'refused unread' })}`,
    ],
  ];
  const a = p.anonymousLargeBodies;
  if (a) out.push([`${num(a.outcome.bodies)} anonymous 12 MiB rating bodies, in waves of 50 at once`, `${attackCell(a)}; ${answers(a.outcome.answers, { '401': 'refused' })}`]);
  const s = p.slowSenders;
  if (s) out.push([`${num(s.outcome.senders)} slow senders of 8 MiB session logs (each its own session's token), 15 s`, `${attackCell(s)}; ${answers(s.outcome.answers, { '503': 'refused at once' })}`]);
  const c = p.cliImport;
  if (c) {
    out.push([`\`cli import\` of ${num(c.stimuli)} stimuli beside the server (${num(c.created.outcome.seconds, 1)} s, exit code ${c.created.outcome.code ?? '—'})`, attackCell(c.created)]);
    out.push([`The same import again, unchanged (${num(c.unchanged.outcome.seconds, 1)} s, exit code ${c.unchanged.outcome.code ?? '—'})`, attackCell(c.unchanged)]);
  }
  const u = p.consoleUpload;
  if (u) {
    const upload = (o: { status: number; seconds: number; zipMb: number }) => `a ${num(o.zipMb, 1)} MiB zip, ${num(o.seconds, 1)} s, answered ${o.status}`;
    out.push([`The same study (${num(u.stimuli)} stimuli) uploaded in the console (${upload(u.created.outcome)})`, attackCell(u.created)]);
    out.push([`The same upload again, unchanged (${upload(u.unchanged.outcome)})`, attackCell(u.unchanged)]);
  }
  const proxy = p.behindNginx;
  out.push(
    typeof proxy === 'string'
      ? ['Through nginx', proxy]
      : [
          `Through nginx, another client's ${num(proxy.trustProxy.floodRequests)} requests in ${num(proxy.trustProxy.floodSeconds, 1)} s ` +
            '(20 wrong sign-ins, 300 MTurk previews with a forged `X-Forwarded-For`)',
          `with \`TRUST_PROXY=127.0.0.1\`: researcher's sign-in **${proxy.trustProxy.researcherSignIn}**, new participant's ` +
            `playlist **${proxy.trustProxy.newParticipantPlaylist}**; without: ${proxy.noTrustProxy.researcherSignIn}, ` +
            `${proxy.noTrustProxy.newParticipantPlaylist}`,
        ],
  );
  const lock = p.lockRace;
  out.push([
    `${num(lock.attempts - 1)} wrong passwords, then the right one, sent at once`,
    `**${num(lock.passwordChecks)}** password checks; the right one answered ${lock.rightOne}, the same bytes as a wrong one: ${yesNo(lock.sameAnswerAsAWrongOne)}`,
  ]);
  const stream = p.streamAfterSignOut;
  out.push(['Live statistics after sign-out', `**${num(stream.statsAfterSignOut)}** stats events (${num(stream.statsBeforeSignOut)} before); the stream ended: ${yesNo(stream.ended)}`]);
  const admin = p.firstAdministratorPostgres;
  out.push([
    `First administrator, ${num(admin.concurrentCreations)} accounts created at once, PostgreSQL`,
    `exactly one administrator in **${num(admin.roundsWithExactlyOneAdministrator)} of ${num(admin.rounds)}** rounds`,
  ]);
  const quota = p.logQuota;
  out.push([
    `${num(quota.sqlite.posts)} session-log posts of one session at once`,
    `**${num(quota.sqlite.stored)}** stored on SQLite (answers: ${answers(quota.sqlite.answers, QUOTA_ANSWERS)}), **${num(quota.postgres.stored)}** on PostgreSQL (answers: ${answers(quota.postgres.answers, QUOTA_ANSWERS)})`,
  ]);
  return out;
}

/** The issue's four rows, judged on participants' p99 ratios (ratings, and session logs where measured). */
function targetLine(p: ParticipantsResult): string {
  const judged: [string, number[]][] = [['the sign-in flood', [p.signInFlood.p99Ratio]]];
  if (p.anonymousLargeBodies) judged.push(['the anonymous bodies', [p.anonymousLargeBodies.p99Ratio.ratings, p.anonymousLargeBodies.p99Ratio.logs]]);
  if (p.slowSenders) judged.push(['the slow senders', [p.slowSenders.p99Ratio.ratings, p.slowSenders.p99Ratio.logs]]);
  if (p.cliImport) judged.push(['the CLI import', [p.cliImport.created.p99Ratio.ratings, p.cliImport.created.p99Ratio.logs]]);
  return (
    `Target of the issue: participants' p99 within ${TARGET_P99_RATIO} × idle during ` +
    judged.map(([name, ratios]) => `${name} (× ${ratios.map((r) => num(r, 1)).join(', × ')}: **${ratios.every((r) => r <= TARGET_P99_RATIO) ? 'met' : 'not met'}**)`).join(', ') +
    '.'
  );
}

export const participantsSection: BenchSection = {
  title: 'bench:participants',
  latest(results) {
    const p = results.get<ParticipantsResult>(FILE);
    if (!p) return { ran: 'not run', headline: '—', files: [FILE] };
    const parts = [
      `a flood of ${num(total(p.signInFlood.signIns))} sign-ins: participants' rating p99 **× ${num(p.signInFlood.p99Ratio, 1)}** idle`,
      p.anonymousLargeBodies &&
        `${num(p.anonymousLargeBodies.outcome.bodies)} anonymous 12 MiB bodies: RSS peak **${num(p.anonymousLargeBodies.rssMb.peak)} MB**, ` +
          `rating p99 × ${num(p.anonymousLargeBodies.p99Ratio.ratings, 1)}`,
      p.cliImport && `\`cli import\` of ${num(p.cliImport.stimuli)} stimuli beside the server: × ${num(p.cliImport.created.p99Ratio.ratings, 1)}`,
      p.consoleUpload && `the same study uploaded in the console: × ${num(p.consoleUpload.created.p99Ratio.ratings, 1)}`,
    ];
    return { ran: day(resultDate(p)), headline: parts.filter(Boolean).join('; '), files: [FILE] };
  },
  render(results: Results) {
    const p = results.get<ParticipantsResult>(FILE);
    return blocks(
      '**`npm run bench:participants`** (`bench/participants/`; issues 25 and 34, [Participants ' +
        'first](security.md#participants-first) and [Security round 4](security.md#security-round-4)): nothing a ' +
        'stranger sends, no sign-in flood and no proxy should slow or block a participant. The latency rows run ' +
        'against a server in its own process (SQLite, `DURABLE`) holding a pair-comparison study, while simulated ' +
        'participants, 4 at a time, rate each stimulus of a playlist and then post a small session log; each row ' +
        'compares their p99 (or, for the junk bodies, that of `/meta.json`) with an idle run measured in the same ' +
        'script just before. The ' +
        'attacking clients run in a process of their own (`bench/participants/attacker.mjs`). RSS is the ' +
        "server's resident memory, sampled every 100 ms. The sign-in flood is spread over `BENCH_FLOOD_S` seconds " +
        '(20 unless set; the result does not record it). The other rows count password checks, events and rows, ' +
        'in process.',
      runLine(FILE, p),
      p && blocks(table(['Figure', 'Result'], rows(p)), targetLine(p)),
    );
  },
};
