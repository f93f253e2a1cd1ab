/**
 * Steps of the participant journey on the generic test page, shared by the web journeys (pvid*.spec.ts).
 * They click what a participant clicks and wait on what a participant sees (plus #trial's data-status, the
 * page's own record of where the trial stands).
 */
import { PassThrough } from 'node:stream';
import type { Page, Response } from '@playwright/test';
import type { PlaylistResponse, PlaylistStimulus } from '../../src/contract/playlist.js';
import type { PresentationRecord } from '../../src/web/stage/types.js';
import { exportJob, type ExportTable } from '../../src/server/export/export.js';
import type { GlimpseServer } from './fixtures';
import { expect } from './fixtures';

/** Open the link and go through eligibility, welcome (privacy box) and instructions; resolves with the playlist. */
export async function startTest(page: Page, link: string): Promise<PlaylistResponse<PlaylistStimulus>> {
  const playlistAnswer: Promise<Response> = page.waitForResponse((r) => /\/api\/get[a-z]+\/[^/?]+\?/.test(r.url()));
  await page.goto(link);
  await page.getByRole('button', { name: 'Continue' }).click();
  const playlist = (await (await playlistAnswer).json()) as PlaylistResponse<PlaylistStimulus>;
  await page.getByLabel('I have read and I accept the').check();
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('button', { name: 'Go to the test' }).click();
  return playlist;
}

export interface VotePlan {
  /** Replays asked before answering. */
  replays: number;
  choice: 'first' | 'last';
  /** Pick the other option first, then Modify (the stored value must be the final choice). */
  modifyFirst?: boolean;
}

export interface VoteLabels {
  first: string;
  last: string;
  replay: string;
}

async function waitForVote(page: Page, index: number, replays: number): Promise<void> {
  const trial = page.locator('#trial');
  await expect(trial).toHaveAttribute('data-index', String(index), { timeout: 60_000 });
  await expect(trial).toHaveAttribute('data-replays', String(replays));
  await expect(trial).toHaveAttribute('data-status', 'responding', { timeout: 60_000 });
  await expect(page.locator('#vote-modal')).toBeVisible();
}

/** Answer stimulus `index` of `total` as planned, checking the dialog's labels and its "index / length" line. */
export async function vote(page: Page, index: number, total: number, plan: VotePlan, labels: VoteLabels): Promise<void> {
  for (let r = 0; r < plan.replays; r++) {
    await waitForVote(page, index, r);
    await page.getByRole('button', { name: labels.replay }).click();
  }
  await waitForVote(page, index, plan.replays);
  const modal = page.locator('#vote-modal');
  await expect(modal.getByText(`${index + 1} / ${total}`)).toBeVisible();
  const wanted = plan.choice === 'first' ? labels.first : labels.last;
  const other = plan.choice === 'first' ? labels.last : labels.first;
  await expect(modal.getByRole('button', { name: labels.replay })).toBeVisible();
  if (plan.modifyFirst) {
    await modal.getByRole('button', { name: other, exact: true }).click();
    await modal.getByRole('button', { name: 'Modify' }).click();
  }
  await modal.getByRole('button', { name: wanted, exact: true }).click();
  await expect(modal.getByText(wanted, { exact: true })).toBeVisible();
  await modal.getByRole('button', { name: 'Submit' }).click();
}

/** Poll the database until `count()` reaches `expected` (the server commits before it answers; the page may not have asked yet). */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function sessionLogsOf(glimpse: GlimpseServer, sessionId: number) {
  return glimpse.db.selectFrom('session_logs').selectAll().where('session_id', '=', sessionId).execute();
}

export function ratingsOf(glimpse: GlimpseServer, sessionId: number) {
  return glimpse.db.selectFrom('ratings').selectAll().where('session_id', '=', sessionId).orderBy('id').execute();
}

/** A job's export table (JSON Lines, as `npm run cli -- export` writes it), the rows of one session. */
export async function exportedRows(glimpse: GlimpseServer, jobId: string, table: ExportTable, sessionId: number): Promise<Array<Record<string, unknown>>> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  await exportJob(glimpse.storage, jobId, { table, format: 'json', out });
  return Buffer.concat(chunks)
    .toString()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((row) => row.session_id === sessionId);
}

/**
 * The plays the participant asked for (the first and each replay) among a rating's recorded plays. A play the stage
 * interrupted is recorded as such and played again by the stage itself (on this loaded 2-core machine, frames at half
 * rate for a while read as a display change: docs/timing.md); at most one is allowed here.
 */
export function askedPlays(plays: PresentationRecord[][]): PresentationRecord[][] {
  const asked = plays.filter((play) => !play.some((r) => r.endedBy === 'interrupted'));
  expect(plays.length - asked.length, 'plays the stage interrupted').toBeLessThanOrEqual(1);
  return asked;
}
