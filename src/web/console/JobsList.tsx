import { createColumnHelper } from '@tanstack/react-table';
import { useEffect, useMemo, useState } from 'react';
import { CopyLink } from './CopyLink.js';
import { Link } from 'react-router-dom';
import { getJson } from './consoleApi.js';
import { useConsole, type JobSummary } from './context.js';
import { DataTable } from './DataTable.js';

const column = createColumnHelper<JobSummary>();

/** Every study the user may see: protocol, status, sessions, and the participant links per platform. */
export default function JobsList() {
  const { t } = useConsole();
  const [jobs, setJobs] = useState<JobSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    getJson<JobSummary[]>('/console/api/jobs').then(setJobs, (e: Error) => setError(e.message));
  }, []);

  const columns = useMemo(
    () => [
      column.accessor('id', { header: t.study, cell: (c) => <Link to={`/console/jobs/${c.getValue()}`} translate="no">{c.getValue()}</Link> }),
      column.accessor('protocol', { header: t.protocol, cell: (c) => t.protocolNames[c.getValue()] ?? c.getValue() }),
      column.accessor('status', { header: t.status, cell: (c) => <span className={`status status-${c.getValue()}`}>{t.statusNames[c.getValue()] ?? c.getValue()}</span> }),
      column.accessor((j) => j.sessions.started, { id: 'started', header: t.started }),
      column.accessor((j) => j.sessions.completed, { id: 'completed', header: t.completed }),
      column.accessor((j) => j.sessions.accepted, { id: 'accepted', header: t.accepted }),
      column.accessor((j) => j.sessions.rejected, { id: 'rejected', header: t.rejected }),
      column.display({
        id: 'links',
        header: t.links,
        cell: (c) => (
          <ul className="plain">
            {(['prolific', 'mturk', 'lab'] as const).map((platform) => (
              <li key={platform}>
                <CopyLink label={platform} url={c.row.original.links[platform]} short />
              </li>
            ))}
          </ul>
        ),
      }),
    ],
    [t],
  );

  if (error) return <p role="alert" className="console-error">{error}</p>;
  if (!jobs) return <p role="status">{t.loading}</p>;
  return (
    <>
      <h1 id="jobs-title">{t.jobs}</h1>
      {/* The heading names the table: a caption and a column saying « Studies » again would read three times in a row. */}
      {jobs.length === 0 ? <p>{t.noJobs}</p> : <DataTable labelledBy="jobs-title" columns={columns} rows={jobs} id="jobs-table" />}
    </>
  );
}
