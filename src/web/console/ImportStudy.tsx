import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { ConsoleApiError, postForm } from './consoleApi.js';
import { useConsole } from './context.js';
import { fill } from './strings.js';

/** Upload a zip of study.json and its media; the server imports it like `cli import`, all or nothing. */
export default function ImportStudy() {
  const { t } = useConsole();
  const [file, setFile] = useState<File | null>(null);
  const [replace, setReplace] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ jobId: string; status: string } | null>(null);
  const [error, setError] = useState<ConsoleApiError | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    setBusy(true);
    setResult(null);
    setError(null);
    const form = new FormData();
    if (replace) form.append('replace', '1');
    form.append('study', file);
    try {
      setResult(await postForm<{ jobId: string; status: string }>('/console/api/import', form));
    } catch (e) {
      setError(e instanceof ConsoleApiError ? e : new ConsoleApiError(0, 'ERROR', (e as Error).message));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1>{t.importStudy}</h1>
      <form className="console-form" onSubmit={(e) => void submit(e)}>
        <label htmlFor="study-zip">{t.zipFile}</label>
        <input id="study-zip" type="file" accept=".zip,application/zip" required onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        <label className="checkbox">
          <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.target.checked)} /> {t.replace}
        </label>
        <button type="submit" disabled={busy || !file}>
          {t.upload}
        </button>
      </form>
      {result && (
        <p role="status" id="import-result">
          {fill(t.imported, { id: result.jobId, status: t.importStatuses[result.status] ?? result.status })} <Link to={`/console/jobs/${result.jobId}`}>{result.jobId}</Link>
        </p>
      )}
      {error && (
        <div role="alert" className="console-error" id="import-error">
          {error.details.length > 0 ? (
            <>
              <p>{t.problems}</p>
              <ul>
                {error.details.map((d) => (
                  <li key={`${d.path}:${d.message}`}>
                    <code>{d.path}</code>
                    {t.colon}
                    {d.message}
                  </li>
                ))}
              </ul>
            </>
          ) : (
            <p>{error.message}</p>
          )}
        </div>
      )}
    </>
  );
}
