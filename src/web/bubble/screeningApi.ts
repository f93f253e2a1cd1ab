/**
 * POST /api/bubblescreenings/ with the play's Idempotency-Key (one per play, reused by every retry), through the
 * flow's http client and retry policy. SPEC §8: a failure is only logged.
 */
import type { BubbleScreeningBody } from '../../contract/payloads.js';
import { http, isTransient } from '../flow/api.js';
import { withRetry } from '../flow/retry.js';

export async function postBubbleScreening(body: BubbleScreeningBody, idempotencyKey: string): Promise<boolean> {
  try {
    const res = await withRetry(() => http.post('/api/bubblescreenings/', body, { headers: { 'Idempotency-Key': idempotencyKey } }), {
      attempts: 3,
      baseDelayMs: 400,
      shouldRetry: isTransient,
      onRetry: (error, attempt) => console.log(`bubble screening post failed (try ${attempt}), retrying`, error),
    });
    console.log('bubble screening stored', res.data);
    return true;
  } catch (error) {
    console.log('bubble screening post failed', error);
    return false;
  }
}
