import { createColumnHelper } from '@tanstack/react-table';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { reasonInWords } from '../../quality/reasons.js';
import type { FailedRule } from '../../server/console/stats.js';
import { getJson, postJson } from './consoleApi.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { useConsole } from './context.js';
import { DataTable } from './DataTable.js';
import { dateTime, fill } from './strings.js';

interface ParticipantRow {
  sessionId: number;
  playlist: number;
  platform: string;
  startedAt: string;
  completedAt: string | null;
  state: string;
  /** Quality control's two verdicts; null when not judged. */
  payment: 'approve' | 'reject' | null;
  analysis: 'include' | 'exclude' | null;
  failed: FailedRule[];
  preview: boolean;
  answers: number;
  ids: { workerId: string | null; assignmentId: string | null; prolificPid: string | null; submissionId: string | null; email: string | null } | null;
}

const column = createColumnHelper<ParticipantRow>();
const STATUSES = ['all', 'running', 'completed', 'accepted', 'rejected', 'abandoned'] as const;

/** The sessions of a study, filtered and paged by the server; platform ids and withdrawal for owners only. */
export default function Participants({ jobId, owner }: { jobId: string; owner: boolean }) {
  const { t } = useConsole();
  const [status, setStatus] = useState<(typeof STATUSES)[number]>('all');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const [data, setData] = useState<{ total: number; pageSize: number; rows: ParticipantRow[] } | null>(null);
  const [asked, setAsked] = useState<number | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  const load = useCallback(() => {
    const params = new URLSearchParams({ page: String(page), pageSize: '25', status, ...(query.trim() ? { q: query.trim() } : {}) });
    getJson<{ total: number; pageSize: number; rows: ParticipantRow[] }>(`/console/api/jobs/${encodeURIComponent(jobId)}/participants?${params}`).then(setData, (e: Error) => setMessage(e.message));
  }, [jobId, page, status, query]);
  useEffect(load, [load]);

  const withdraw = async (sessionId: number) => {
    setAsked(null);
    try {
      await postJson(`/console/api/jobs/${encodeURIComponent(jobId)}/withdraw`, { sessionId, confirm: true });
      setMessage(fill(t.withdrawn, { id: sessionId }));
      load();
    } catch (e) {
      setMessage((e as Error).message);
    }
  };

  const columns = useMemo(
    () => [
      column.accessor('sessionId', {
        header: t.session,
        cell: (c) => (
          <>
            {c.getValue()} {c.row.original.preview && <span className="preview-mark">{t.previewMark}</span>}
          </>
        ),
      }),
      column.accessor('playlist', { header: t.playlist }),
      column.accessor('platform', { header: t.platform, cell: (c) => <span translate="no">{c.getValue()}</span> }),
      column.accessor('startedAt', { header: t.startedAt, cell: (c) => dateTime(t, c.getValue()) }),
      column.accessor('state', { header: t.status, cell: (c) => t.sessionStates[c.getValue()] ?? c.getValue() }),
      column.accessor('answers', { header: t.answers }),
      column.accessor('payment', { header: t.payment, cell: (c) => (c.getValue() ? t.verdictWords[c.getValue()!] : '–') }),
      column.accessor('analysis', { header: t.analysis, cell: (c) => (c.getValue() ? t.verdictWords[c.getValue()!] : '–') }),
      column.accessor('failed', { header: t.reasons, cell: (c) => c.getValue().map((f) => reasonInWords(f, t.reasonLanguage)).join(t.listSeparator) }),
      ...(owner
        ? [
            column.accessor('ids', {
              header: t.ids,
              cell: (c) => {
                const ids = c.getValue();
                return ids ? <span translate="no">{[ids.workerId, ids.assignmentId, ids.prolificPid, ids.submissionId, ids.email].filter(Boolean).join(' · ')}</span> : '';
              },
            }),
            column.display({
              id: 'withdraw',
              header: t.withdraw,
              cell: (c) => (
                <button type="button" className="small danger" onClick={() => setAsked(c.row.original.sessionId)} aria-label={`${t.withdraw} ${c.row.original.sessionId}`}>
                  {t.withdraw}
                </button>
              ),
            }),
          ]
        : []),
    ],
    [t, owner],
  );

  const pages = data ? Math.max(1, Math.ceil(data.total / data.pageSize)) : 1;
  return (
    <section aria-labelledby="participants-title">
      <h2 id="participants-title">{t.participants}</h2>
      {!owner && <p className="muted">{t.ownerOnly}</p>}
      <div className="filters">
        <label htmlFor="participants-status">{t.filter}</label>
        <select id="participants-status" value={status} onChange={(e) => (setPage(1), setStatus(e.target.value as (typeof STATUSES)[number]))}>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {t.sessionStates[s] ?? s}
            </option>
          ))}
        </select>
        <label htmlFor="participants-search">{t.search}</label>
        <input id="participants-search" type="search" value={query} onChange={(e) => (setPage(1), setQuery(e.target.value))} />
      </div>
      {message && <p role="status">{message}</p>}
      {data && <DataTable caption={`${t.participants}${t.colon}${data.total}`} columns={columns} rows={data.rows} id="participants-table" />}
      <div className="pager">
        <button type="button" className="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          {t.previous}
        </button>
        <span>
          {t.page} {page} {t.of} {pages}
        </span>
        <button type="button" className="secondary" disabled={page >= pages} onClick={() => setPage(page + 1)}>
          {t.next}
        </button>
      </div>
      {asked !== null && <ConfirmDialog message={fill(t.confirmWithdraw, { id: asked })} onConfirm={() => void withdraw(asked)} onCancel={() => setAsked(null)} />}
    </section>
  );
}
