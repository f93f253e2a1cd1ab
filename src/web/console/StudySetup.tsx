import { useState } from 'react';
import { postJson } from './consoleApi.js';
import { useConsole, type JobDetail } from './context.js';
import { CopyLink } from './CopyLink.js';

/**
 * What a researcher needs before recruiting: the participant links per platform (Prolific's with its placeholders),
 * the completion URL, the study's settings, and (owners) preview links to run the study as a participant first.
 */
export function StudySetup({ job, onError }: { job: JobDetail; onError(message: string): void }) {
  const { t } = useConsole();
  const [preview, setPreview] = useState<{ prolific: string; lab: string } | null>(null);
  const makePreview = () =>
    postJson<{ links: { prolific: string; lab: string } }>(`/console/api/jobs/${encodeURIComponent(job.id)}/preview`).then(
      (answer) => setPreview(answer.links),
      (e: Error) => onError(e.message),
    );
  const rows = Object.entries(job.settings).filter(([, value]) => value !== undefined && value !== null && value !== '');
  return (
    <section aria-labelledby="setup-title">
      <h2 id="setup-title" className="visually-hidden">
        {t.links}
      </h2>
      <div className="columns">
        <div>
          <h3>{t.links}</h3>
          <ul className="plain" id="participant-links">
            {(['prolific', 'mturk', 'lab'] as const).map((platform) => (
              <li key={platform}>
                <CopyLink label={platform} url={job.links[platform]} />
              </li>
            ))}
          </ul>
          <p id="completion-url">
            <strong>
              {t.completionUrl}
              {t.colon.trimEnd()}
            </strong>{' '}
            {job.completionUrl ? <code>{job.completionUrl}</code> : t.noCompletionUrl}
          </p>
          {job.role === 'owner' && (
            <>
              <h3>{t.previewTitle}</h3>
              <p className="muted">{t.previewNote}</p>
              <button type="button" className="secondary" onClick={() => void makePreview()}>
                {t.previewMake}
              </button>
              {preview && (
                <ul className="plain" id="preview-links">
                  <li>
                    <a href={preview.prolific} target="_blank" rel="noreferrer">
                      {t.preview} {t.previewProlific}
                    </a>
                  </li>
                  <li>
                    <a href={preview.lab} target="_blank" rel="noreferrer">
                      {t.preview} {t.previewLab}
                    </a>
                  </li>
                </ul>
              )}
            </>
          )}
        </div>
        <details id="study-settings">
          <summary>{t.settings}</summary>
          <table className="console-table settings-table">
            <caption className="visually-hidden">{t.settings}</caption>
            <thead>
              <tr>
                <th scope="col">{t.field}</th>
                <th scope="col">{t.value}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(([key, value]) => (
                <tr key={key}>
                  <th scope="row">{key}</th>
                  <td>{typeof value === 'object' ? <code>{JSON.stringify(value)}</code> : String(value)}</td>
                </tr>
              ))}
              <tr>
                <th scope="row">{t.qualitySettings}</th>
                <td>
                  <code>{JSON.stringify(job.quality)}</code>
                </td>
              </tr>
            </tbody>
          </table>
        </details>
      </div>
    </section>
  );
}
