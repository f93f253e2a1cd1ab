import { describe, expect, it } from 'vitest';
import type { DecisionRow } from '../storage/quality.js';
import { platformDecisions } from './decisions.js';

const row = (over: Partial<DecisionRow>): DecisionRow => ({
  session_id: 1,
  playlist_id: 1,
  platform: 'mturk',
  completed_at: '2026-01-01T00:00:00.000Z',
  verification_code: 'ABC',
  worker_id: null,
  assignment_id: null,
  hit_id: null,
  prolific_pid: null,
  study_id: null,
  prolific_session_id: null,
  accepted: null,
  included: null,
  outcomes: null,
  ...over,
});
const failed = JSON.stringify([{ rule: 'gold', status: 'failed', detail: '1 of 1 missed' }]);
const quality = { rejectionMessage: '=HYPERLINK("http://x","y")', bonus: { amount: '0.50', reason: '@SUM(1)' } };

describe('platformDecisions and CSV injection', () => {
  it('quotes the free text written from the study file, never the ids nor the amount the platforms read', () => {
    const mturk = platformDecisions(
      [row({ session_id: 1, worker_id: '-W1', assignment_id: 'A1', hit_id: 'H1', accepted: 1 }), row({ session_id: 2, worker_id: 'W2', assignment_id: '-A2', hit_id: 'H1', accepted: 0, outcomes: failed })],
      'mturk',
      quality,
    );
    const file = (name: string) => mturk.files.find((f) => f.name === name)!.rows;
    expect(file('decisions.csv')[0]).toEqual(['H1', 'A1', '-W1', 'x', '']);
    expect(file('decisions.csv')[1]!.slice(0, 4)).toEqual(['H1', '-A2', 'W2', '']);
    expect(file('decisions.csv')[1]![4]).toMatch(/^'=HYPERLINK\("http:\/\/x","y"\)\. Reasons: Answered a question with a known answer wrongly \(1 of 1 missed\)\.$/);
    expect(file('bonus.csv')).toEqual([['-W1', 'A1', '0.50', "'@SUM(1)"]]);

    const prolific = platformDecisions(
      [row({ platform: 'prolific', prolific_pid: '-P1', prolific_session_id: 'S1', study_id: 'ST', accepted: 0, outcomes: failed })],
      'prolific',
      quality,
    );
    const reject = prolific.files.find((f) => f.name === 'reject.csv')!.rows[0]!;
    expect(reject.slice(0, 5)).toEqual(['-P1', 'S1', 'ST', '1', 'FAILED_CHECK']);
    expect(reject[5]).toMatch(/^'=HYPERLINK/);
    expect(prolific.files.find((f) => f.name === 'block-list.txt')!.rows).toEqual([['-P1']]);
  });
});
