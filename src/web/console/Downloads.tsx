import { useState } from 'react';
import { download, getJson, postJson } from './consoleApi.js';
import { useConsole } from './context.js';
import { VegaChart } from './VegaChart.js';

const EXPORTS: Array<{ label: string; query: string }> = [
  { label: 'ratings.csv', query: 'table=ratings&format=csv' },
  { label: 'ratings.jsonl', query: 'table=ratings&format=json' },
  { label: 'screenings.jsonl', query: 'table=screenings&format=json' },
  { label: 'sessionlogs.jsonl', query: 'table=sessionlogs&format=json' },
  { label: 'presentations.csv', query: 'table=presentations&format=csv' },
  { label: 'p910.csv', query: 'format=p910' },
  { label: 'pairs.csv', query: 'format=pairs' },
  { label: 'mlds.csv', query: 'format=mlds' },
];

/**
 * Every export format and the platforms' decision lists (owners: they hold platform ids), streamed with progress,
 * and the analysis report (everyone), whose charts the page draws from the report's own chart specifications.
 */
export default function Downloads({ jobId, owner }: { jobId: string; owner: boolean }) {
  const { t } = useConsole();
  const base = `/console/api/jobs/${encodeURIComponent(jobId)}`;
  const [progress, setProgress] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [decisions, setDecisions] = useState<Record<string, Array<{ name: string; rows: number }>>>({});
  const [charts, setCharts] = useState<Array<{ title: string; spec: object }> | null>(null);
  // Which sessions quality control left out the report and the analysis exports keep (the CLI's --include).
  const [include, setInclude] = useState({ rejected: false, excluded: false });
  const includeWords = [include.rejected ? 'rejected' : '', include.excluded ? 'excluded' : ''].filter(Boolean).join(',');
  const includeQuery = includeWords ? `?include=${includeWords}` : '';

  const fetchFile = async (path: string) => {
    setError(null);
    setProgress(t.downloading);
    try {
      await download(path, (done, total, unit) => setProgress(`${t.downloading} ${done.toLocaleString()}${total !== null && total >= 0 ? ` / ${total.toLocaleString()}` : ''} ${unit === 'rows' ? t.rows : t.bytes}`));
      setProgress(null);
    } catch (e) {
      setProgress(null);
      setError((e as Error).message);
    }
  };
  const listDecisions = async (platform: string) => {
    try {
      const answer = await getJson<{ files: Array<{ name: string; rows: number }> }>(`${base}/decisions/${platform}`);
      setDecisions((d) => ({ ...d, [platform]: answer.files }));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const showCharts = async () => {
    try {
      setCharts((await getJson<{ charts: Array<{ title: string; spec: object }> }>(`${base}/report.json${includeQuery}`)).charts);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <section aria-labelledby="downloads-title">
      <h2 id="downloads-title">{t.downloads}</h2>
      {progress && <p role="status" id="download-progress">{progress}</p>}
      {error && <p role="alert" className="console-error">{error}</p>}
      {owner ? (
        <>
          <h3>{t.exports}</h3>
          <ul className="plain buttons">
            {EXPORTS.map((e) => (
              <li key={e.label}>
                <button type="button" className="secondary" onClick={() => void fetchFile(`${base}/export?${e.query}${includeWords && e.query.startsWith('format=') ? `&include=${includeWords}` : ''}`)}>
                  {e.label}
                </button>
              </li>
            ))}
          </ul>
          <h3>{t.decisions}</h3>
          <button type="button" className="secondary" onClick={() => void postJson(`${base}/screen`).then(() => setDecisions({}), (e: Error) => setError(e.message))}>
            {t.rescreen}
          </button>
          {(['prolific', 'mturk'] as const).map((platform) => (
            <div key={platform}>
              <button type="button" className="link-button" onClick={() => void listDecisions(platform)}>
                {platform}
              </button>
              {decisions[platform] && (
                <ul className="plain buttons">
                  {decisions[platform]!.map((f) => (
                    <li key={f.name}>
                      <button type="button" className="secondary" onClick={() => void fetchFile(`${base}/decisions/${platform}/${f.name}`)}>
                        {f.name} ({f.rows})
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          ))}
        </>
      ) : (
        <p className="muted">{t.ownerOnly}</p>
      )}
      <h3>{t.report}</h3>
      <fieldset className="plain" id="report-include">
        <label>
          <input type="checkbox" checked={include.rejected} onChange={(e) => setInclude((i) => ({ ...i, rejected: e.target.checked }))} /> {t.includeRejected}
        </label>
        <label>
          <input type="checkbox" checked={include.excluded} onChange={(e) => setInclude((i) => ({ ...i, excluded: e.target.checked }))} /> {t.includeExcluded}
        </label>
      </fieldset>
      <ul className="plain buttons">
        <li>
          <button type="button" onClick={() => void fetchFile(`${base}/report.html${includeQuery}`)}>
            {t.downloadReport}
          </button>
        </li>
        <li>
          <button type="button" className="secondary" onClick={() => void showCharts()}>
            {t.showCharts}
          </button>
        </li>
      </ul>
      {charts?.map((chart) => <VegaChart key={chart.title} spec={chart.spec} title={chart.title} />)}
    </section>
  );
}
