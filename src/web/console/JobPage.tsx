import { lazy, useEffect, useState } from 'react';
import { NavLink, Route, Routes, useParams } from 'react-router-dom';
import { getJson, postJson } from './consoleApi.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { useConsole, type JobDetail, type JobStats } from './context.js';
import { Overview } from './Overview.js';
import { StudySetup } from './StudySetup.js';

const Participants = lazy(() => import('./Participants.js'));
const Downloads = lazy(() => import('./Downloads.js'));

/**
 * One study: its status and controls (owners: open, pause, close, each confirmed), and three views: the live
 * overview (server-sent events), the participants and the downloads.
 */
export default function JobPage() {
  const { t } = useConsole();
  const { id = '' } = useParams();
  const [job, setJob] = useState<JobDetail | null>(null);
  const [stats, setStats] = useState<JobStats | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [asked, setAsked] = useState<'open' | 'paused' | 'closed' | null>(null);

  useEffect(() => {
    getJson<JobDetail>(`/console/api/jobs/${encodeURIComponent(id)}`).then(
      (detail) => {
        setJob(detail);
        setStats(detail.stats);
      },
      (e: Error) => setError(e.message),
    );
    // Live: the server sends the statistics again whenever they change.
    const events = new EventSource(`/console/api/jobs/${encodeURIComponent(id)}/events`);
    events.addEventListener('stats', (event) => setStats(JSON.parse((event as MessageEvent<string>).data) as JobStats));
    return () => events.close();
  }, [id]);

  if (error) return <p role="alert" className="console-error">{error}</p>;
  if (!job || !stats) return <p role="status">{t.loading}</p>;
  const owner = job.role === 'owner';
  const setStatus = async (status: 'open' | 'paused' | 'closed') => {
    setAsked(null);
    try {
      await postJson(`/console/api/jobs/${encodeURIComponent(id)}/status`, { status, confirm: true });
      setStats({ ...stats, status });
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <>
      <h1>
        {/* Ids, e-mails and file names are data, not words: translate="no" keeps them from translators (and the French check). */}
        <span translate="no">{job.id}</span> <span className={`status status-${stats.status}`} id="job-status">{t.statusNames[stats.status] ?? stats.status}</span>
      </h1>
      <p className="muted">
        {t.protocol}
        {t.colon}
        {t.protocolNames[job.protocol] ?? job.protocol}
      </p>
      {owner ? (
        <div className="controls" role="group" aria-label={t.status}>
          {stats.status !== 'open' && stats.status !== 'full' && <button type="button" onClick={() => setAsked('open')}>{t.open}</button>}
          {(stats.status === 'open' || stats.status === 'full') && <button type="button" onClick={() => setAsked('paused')}>{t.pause}</button>}
          {stats.status !== 'closed' && <button type="button" className="danger" onClick={() => setAsked('closed')}>{t.close}</button>}
        </div>
      ) : (
        <p className="muted">{t.ownerOnly}</p>
      )}
      {asked && <ConfirmDialog message={t.confirmStatus[asked]!} onConfirm={() => void setStatus(asked)} onCancel={() => setAsked(null)} />}
      <nav className="tabs" aria-label={job.id}>
        <NavLink end to={`/console/jobs/${job.id}`}>{t.overview}</NavLink>
        <NavLink to={`/console/jobs/${job.id}/participants`}>{t.participants}</NavLink>
        <NavLink to={`/console/jobs/${job.id}/downloads`}>{t.downloads}</NavLink>
      </nav>
      <Routes>
        <Route
          index
          element={
            <>
              <StudySetup job={job} onError={setError} />
              <Overview stats={stats} />
            </>
          }
        />
        <Route path="participants" element={<Participants jobId={job.id} owner={owner} />} />
        <Route path="downloads" element={<Downloads jobId={job.id} owner={owner} offered={job.downloads} />} />
      </Routes>
    </>
  );
}
