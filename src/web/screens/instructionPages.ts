import type { JobResponse } from '../../contract/job.js';
import type { Training } from '../flow/phases.js';
import type { Strings } from '../i18n/en.js';

/**
 * The pages of the instruction screen (SPEC §2 screen 8), pure. Before the test (and before a training) they are
 * instructionMsg then the job's extra pages. Once the training is over only the test instructions follow: the job's
 * afterTrainingMsg, or a short built-in page, never the whole set again (which would still say that a training
 * comes first).
 */
export function instructionPages(job: Pick<JobResponse, 'instructionMsg' | 'instructionPages' | 'afterTrainingMsg'>, training: Training, t: Strings): string[] {
  if (training === 'finished') return [job.afterTrainingMsg ?? `<p>${escapeHtml(t.afterTrainingDefault)}</p>`];
  return [job.instructionMsg, ...(job.instructionPages ?? [])];
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
