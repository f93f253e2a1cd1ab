import { sql, type KyselyPlugin, type QueryId, type RootOperationNode } from 'kysely';
import type { Storage } from '../../src/server/storage/types.js';

/**
 * PostgreSQL's EXPLAIN ANALYZE of the statements a piece of server code reads with (bench:launch --synthetic on
 * 10,000 sessions): the code runs against a copy of the storage whose `db` records every query it compiles, then
 * each recorded statement runs again under EXPLAIN ANALYZE. Writes (storage.write) are not recorded.
 */

export interface ExplainedStatement {
  statement: string;
  executionMs: number;
  plan: string;
}

export async function explainReads(storage: Storage, run: (spy: Storage) => Promise<unknown>): Promise<ExplainedStatement[]> {
  const recorded: Array<{ node: RootOperationNode; queryId: QueryId }> = [];
  const recorder: KyselyPlugin = {
    transformQuery(args) {
      recorded.push(args);
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  const spy: Storage = { ...storage, db: storage.db.withPlugin(recorder) };
  await run(spy);
  const explained: ExplainedStatement[] = [];
  for (const { node, queryId } of recorded) {
    const compiled = spy.db.getExecutor().compileQuery(node, queryId);
    if (!/^select/i.test(compiled.sql)) continue;
    const lines = (await sql.raw<{ 'QUERY PLAN': string }>(`explain analyze ${inline(compiled.sql, compiled.parameters)}`).execute(storage.db)).rows.map((r) => r['QUERY PLAN']);
    const time = lines.find((l) => l.startsWith('Execution Time'));
    explained.push({ statement: compiled.sql.slice(0, 160), executionMs: Number(time?.match(/([\d.]+) ms/)?.[1] ?? NaN), plan: lines[0]!.trim() });
  }
  return explained;
}

/** The statement with its parameters written in (EXPLAIN takes no bind parameters here); numbers and strings only. */
function inline(text: string, parameters: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, i: string) => {
    const value = parameters[Number(i) - 1];
    return typeof value === 'number' ? String(value) : `'${String(value).replaceAll("'", "''")}'`;
  });
}
