import { useState } from 'react';
import { noResultsInWords, type NoResults } from '../../analysis/missing.js';
import { download, getJson, postJson } from './consoleApi.js';
import { useConsole } from './context.js';
import { count, fill, keepWithBoxes } from './strings.js';
import { VegaChart } from './VegaChart.js';

const EXPORTS: Array<{ label: string; query: string }> = [
  { label: 'ratings.csv', query: 'table=ratings&format=csv' },
  { label: 'ratings.jsonl', query: 'table=ratings&format=json' },
  { label: 'screenings.jsonl', query: 'table=screenings&format=json' },
  { label: 'sessionlogs.jsonl', query: 'table=sessionlogs&format=json' },
  { label: 'presentations.csv', query: 'table=presentations&format=csv' },
  { label: 'views.jsonl', query: 'table=views&format=json' },
  { label: 'p910.csv', query: 'format=p910' },
  { label: 'pairs.csv', query: 'format=pairs' },
  { label: 'mlds.csv', query: 'format=mlds' },
];

/** Formats read from the analysis (previews never in them). */
const ANALYSIS = new Set(['p910.csv', 'pairs.csv', 'mlds.csv']);

type Verdicts = { payment: 'approve' | 'reject'; analysis: 'include' | 'exclude' };

/** GET .../report.json: the report (without results, it says why per section) and its charts' specifications. */
interface ReportCharts {
  report: { unavailable?: Array<{ because: NoResults }> };
  charts: Array<{ title: string; spec: object }>;
}

/** What judging every session again changed (POST .../screen). */
interface Rescreened {
  sessions: number;
  accepted: number;
  rejected: number;
  newlyJudged: number;
  unchanged: number;
  changed: Array<{ sessionId: number; before: Verdicts; after: Verdicts }>;
}

/**
 * The export formats that fit the protocol and the platforms' decision lists (owners: they hold platform ids), streamed with progress,
 * and the analysis report (everyone), whose charts the page draws from the report's own chart specifications.
 */
export default function Downloads({ jobId, owner, offered }: { jobId: string; owner: boolean; offered: string[] }) {
  const { t } = useConsole();
  const base = `/console/api/jobs/${encodeURIComponent(jobId)}`;
  const [progress, setProgress] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [decisions, setDecisions] = useState<Record<string, Array<{ name: string; rows: number }>>>({});
  const [charts, setCharts] = useState<ReportCharts | null>(null);
  // Which sessions quality control left out the report and the analysis exports keep (the CLI's --include).
  const [include, setInclude] = useState({ rejected: false, excluded: false });
  const includeWords = [include.rejected ? 'rejected' : '', include.excluded ? 'excluded' : ''].filter(Boolean).join(',');
  const includeQuery = includeWords ? `?include=${includeWords}` : '';
  const [withPreview, setWithPreview] = useState(false);
  const [judged, setJudged] = useState<Rescreened | null>(null);
  const rescreen = () =>
    postJson<Rescreened>(`${base}/screen`).then(
      (answer) => {
        setDecisions({});
        setJudged(answer);
      },
      (e: Error) => setError(e.message),
    );

  const verdictText = (v: Verdicts) => `${t.payment} ${t.verdictWords[v.payment]}, ${t.analysis.toLowerCase()} ${t.verdictWords[v.analysis]}`;

  const fetchFile = async (path: string) => {
    setError(null);
    setProgress(t.downloading);
    try {
      await download(path, (done, total, unit) => setProgress(`${t.downloading} ${count(t, done)}${total !== null && total >= 0 ? ` / ${count(t, total)}` : ''} ${unit === 'rows' ? t.rows : t.bytes}`));
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
      setCharts(await getJson<ReportCharts>(`${base}/report.json${includeQuery}`));
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
            {EXPORTS.filter((e) => offered.includes(e.label)).map((e) => (
              <li key={e.label}>
                <button
                  type="button"
                  className="secondary"
                  translate="no"
                  onClick={() => void fetchFile(`${base}/export?${e.query}${ANALYSIS.has(e.label) ? (includeWords ? `&include=${includeWords}` : '') : withPreview ? '&preview=1' : ''}`)}
                >
                  {e.label}
                </button>
              </li>
            ))}
          </ul>
          <label className="checkbox">
            <input type="checkbox" checked={withPreview} onChange={(e) => setWithPreview(e.target.checked)} />
            {t.previewInclude}
          </label>
          <h3>{t.decisions}</h3>
          <button type="button" className="secondary" onClick={() => void rescreen()}>
            {t.rescreen}
          </button>
          {judged && (
            <div role="status" id="rescreen-result">
              <p>
                {fill(t.rescreened, { sessions: judged.sessions, accepted: judged.accepted, rejected: judged.rejected, newly: judged.newlyJudged, unchanged: judged.unchanged, changed: judged.changed.length })}
              </p>
              {judged.changed.length > 0 && (
                <ul>
                  {judged.changed.map((c) => (
                    <li key={c.sessionId}>{fill(t.rescreenChange, { id: c.sessionId, before: verdictText(c.before), after: verdictText(c.after) })}</li>
                  ))}
                </ul>
              )}
            </div>
          )}
          {(['prolific', 'mturk'] as const).map((platform) => (
            <div key={platform}>
              <button type="button" className="link-button" translate="no" onClick={() => void listDecisions(platform)}>
                {platform}
              </button>
              {decisions[platform] && (
                <ul className="plain buttons">
                  {decisions[platform]!.map((f) => (
                    <li key={f.name}>
                      <button type="button" className="secondary" translate="no" onClick={() => void fetchFile(`${base}/decisions/${platform}/${f.name}`)}>
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
      {charts && charts.charts.length === 0 && (
        // No chart to draw: the report's own explanation (what is missing, who was left out, how to keep them), in
        // the page's language; the way to keep them here is the two boxes above.
        <div role="status" id="no-charts">
          {(charts.report.unavailable ?? []).map((m) => (
            <p key={m.because.missing.code}>{noResultsInWords(m.because, t.reasonLanguage, keepWithBoxes(t))}</p>
          ))}
          {!charts.report.unavailable?.length && <p>{t.noCharts}</p>}
        </div>
      )}
      {/* The report is written in English: its chart titles say so, for screen readers and the page's language. */}
      {charts?.charts.map((chart) => <VegaChart key={chart.title} spec={chart.spec} title={chart.title} language={t.reasonLanguage} titleLanguage="en" />)}
    </section>
  );
}
