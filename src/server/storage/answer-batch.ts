import { CompiledQuery } from 'kysely';
import type { Db } from './types.js';

/**
 * Group commit of ratings on PostgreSQL (docs/data-safety.md "Durability"). The answers that arrive during one
 * event-loop turn are inserted by ONE statement, `INSERT ... SELECT ... FROM (VALUES ...)`, which commits on its own:
 * one round trip, one plan and one WAL flush for the batch instead of one per answer. Each row is inserted only when
 * its session exists, the token is its token, the stimulus is a test stimulus of its playlist and the session is not
 * completed, and a presentation already answered is skipped, exactly as the single-answer statement does; what
 * the statement did not store is resolved `undefined`, and the caller looks up why. Nothing is resolved before
 * the statement (and so its commit) has returned. If the batch fails, each of its answers is tried again alone,
 * so one bad row cannot fail the others.
 */

/** The answer's own columns with their SQL types (the VALUES list is typed by explicit casts). */
export type AnswerColumns = Array<[column: string, type: 'integer' | 'double precision' | 'text', value: unknown]>;

export interface BatchedAnswer {
  sessionId: number;
  token: string;
  stimulusId: number;
  dedupeKey: string;
  createdAt: string;
  columns: AnswerColumns;
}

interface Pending {
  answer: BatchedAnswer;
  resolve(row: { id: number } | undefined): void;
  reject(error: unknown): void;
}

/** Rows per statement: 10 parameters a rating, far below PostgreSQL's 65,535. */
const MAX_ROWS = 500;

export class AnswerBatcher {
  private queues = new Map<'ratings' | 'screenings', Pending[]>();
  private scheduled = false;
  private statements = new Map<string, string>();

  constructor(
    private db: Db,
    /** The single-answer statement, for a batch that failed. */
    private insertOne: (table: 'ratings' | 'screenings', answer: BatchedAnswer) => Promise<{ id: number } | undefined>,
  ) {}

  insert(table: 'ratings' | 'screenings', answer: BatchedAnswer): Promise<{ id: number } | undefined> {
    return new Promise((resolve, reject) => {
      let queue = this.queues.get(table);
      if (!queue) this.queues.set(table, (queue = []));
      queue.push({ answer, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    for (const [table, queue] of this.queues) {
      this.queues.delete(table);
      // Two posts of the same presentation in one batch: the first goes in it, the others wait for it and then
      // find its row (a replay, or ALREADY_ANSWERED), so every returned row belongs to exactly one post.
      const first = new Map<string, Pending>();
      const later: Pending[] = [];
      for (const p of queue) {
        const key = `${p.answer.sessionId}\u0000${p.answer.dedupeKey}`;
        if (first.has(key)) later.push(p);
        else first.set(key, p);
      }
      const batch = [...first.values()];
      const runs: Array<Promise<void>> = [];
      for (let i = 0; i < batch.length; i += MAX_ROWS) runs.push(this.run(table, batch.slice(i, i + MAX_ROWS)));
      if (later.length > 0) void Promise.allSettled(runs).then(() => this.run(table, later));
    }
  }

  private async run(table: 'ratings' | 'screenings', batch: Pending[]): Promise<void> {
    try {
      const { rows } = await this.db.executeQuery<{ id: number; session_id: number; dedupe_key: string }>(this.statement(table, batch));
      const ids = new Map(rows.map((r) => [`${r.session_id}\u0000${r.dedupe_key}`, Number(r.id)]));
      for (const p of batch) {
        const id = ids.get(`${p.answer.sessionId}\u0000${p.answer.dedupeKey}`);
        p.resolve(id === undefined ? undefined : { id });
      }
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      await Promise.all(batch.map((p) => this.insertOne(table, p.answer).then(p.resolve, p.reject)));
    }
  }

  private statement(table: 'ratings' | 'screenings', batch: Pending[]): CompiledQuery {
    const columns = batch[0]!.answer.columns;
    const width = 5 + columns.length;
    const key = `${table}:${batch.length}`;
    let text = this.statements.get(key);
    if (text === undefined) {
      const types = ['integer', 'text', 'integer', 'text', 'text', ...columns.map(([, type]) => type)];
      const tuples = batch.map((_, row) => `(${types.map((type, i) => `cast($${row * width + i + 1} as ${type})`).join(', ')})`);
      const names = columns.map(([name]) => name);
      const aliases = names.map((_, i) => `c${i}`);
      text = `insert into ${table} (session_id, stimulus_id, dedupe_key, created_at, ${names.join(', ')})
        select s.id, st.id, v.dedupe_key, v.created_at, ${aliases.map((a) => `v.${a}`).join(', ')}
        from (values ${tuples.join(', ')}) as v(session_id, token, stimulus_id, dedupe_key, created_at, ${aliases.join(', ')})
        join sessions s on s.id = v.session_id and s.token = v.token and s.completed_at is null
          and (s.preview_until is null or s.preview_until > v.created_at)
        join stimuli st on st.id = v.stimulus_id and st.playlist_id = s.playlist_id and st.is_training = 0
        on conflict (session_id, dedupe_key) do nothing
        returning id, session_id, dedupe_key`;
      if (this.statements.size >= 200) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(key, text);
    }
    const parameters = batch.flatMap(({ answer: a }) => [a.sessionId, a.token, a.stimulusId, a.dedupeKey, a.createdAt, ...a.columns.map(([, , value]) => value)]);
    return CompiledQuery.raw(text, parameters);
  }
}
