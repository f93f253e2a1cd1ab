import { useMemo } from 'react';
import { reasonInWords, ruleInWords } from '../../quality/reasons.js';
import { useConsole, type JobStats } from './context.js';
import { Precision } from './Precision.js';
import { fill, type ConsoleLanguage } from './strings.js';
import { VegaChart } from './VegaChart.js';

/** The completions chart's hours, as each language writes a date (d3 time format). */
const HOUR_FORMAT: Record<ConsoleLanguage, string> = { en: '%b %e, %H:%M', fr: '%e %b, %H:%M' };

/** The live overview of a study: counters, progress per playlist, completions, drop-out, timing and screening. */
export function Overview({ stats }: { stats: JobStats }) {
  const { t } = useConsole();
  const s = stats.sessions;
  const judgedRules = stats.rules.filter((r) => r.passed + r.failed > 0);
  const completionsSpec = useMemo(
    () => ({
      $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
      width: 560,
      height: 180,
      data: { values: stats.completions },
      mark: { type: 'bar', color: '#1f5fae' },
      encoding: {
        x: { field: 'hour', type: 'temporal', timeUnit: 'yearmonthdatehours', title: null, axis: { format: HOUR_FORMAT[t.reasonLanguage] } },
        y: { field: 'completed', type: 'quantitative', title: t.completed },
      },
    }),
    [stats.completions, t.completed, t.reasonLanguage],
  );
  return (
    <section aria-labelledby="overview-title">
      <h2 id="overview-title">{t.overview}</h2>
      <p className="muted">{t.live}</p>
      <dl className="counters" aria-live="polite">
        <div>
          <dt>{t.visited}</dt>
          <dd id="stat-visited">{stats.visited}</dd>
        </div>
        {(['started', 'running', 'completed', 'accepted', 'rejected', 'excluded'] as const).map((key) => (
          <div key={key}>
            <dt>{t[key]}</dt>
            <dd id={`stat-${key}`}>{s[key]}</dd>
          </div>
        ))}
        <div>
          <dt>{t.medianDuration}</dt>
          <dd id="stat-median">{stats.medianSessionMinutes === null ? '–' : `${stats.medianSessionMinutes} ${t.minutes}`}</dd>
        </div>
      </dl>

      <h3>{t.progress}</h3>
      {stats.design ? (
        <p className="muted" id="adaptive-design">
          {fill(t.adaptiveDesign, {
            comparisons: stats.design.comparisonsPerParticipant,
            contents: stats.design.contents,
            conditions: stats.design.conditions.min === stats.design.conditions.max ? stats.design.conditions.min : `${stats.design.conditions.min}–${stats.design.conditions.max}`,
          })}
        </p>
      ) : (
        <p className="muted">
          {t.target}
          {t.colon}
          {stats.target ?? t.noTarget}
        </p>
      )}
      <table className="console-table">
        <caption className="visually-hidden">{t.progress}</caption>
        <thead>
          <tr>
            <th scope="col">{t.playlist}</th>
            <th scope="col">{t.accepted}</th>
            <th scope="col">{t.started}</th>
            <th scope="col">{t.running}</th>
            <th scope="col">{t.completed}</th>
            <th scope="col">{t.rejected}</th>
          </tr>
        </thead>
        <tbody>
          {stats.playlists.map((p) => (
            <tr key={p.id}>
              <th scope="row">{p.position < 0 ? t.ownPlaylists : p.position + 1}</th>
              <td>
                {stats.target ? (
                  <progress value={Math.min(p.accepted, stats.target)} max={stats.target} aria-label={`${p.position < 0 ? t.ownPlaylists : `${t.playlist} ${p.position + 1}`}${t.colon}${p.accepted} / ${stats.target}`} />
                ) : null}{' '}
                {p.accepted}
                {stats.target ? ` / ${stats.target}` : ''}
              </td>
              <td>{p.started}</td>
              <td>{p.running}</td>
              <td>{p.completed}</td>
              <td>{p.rejected}</td>
            </tr>
          ))}
        </tbody>
      </table>

      {stats.precision ? <Precision precision={stats.precision} /> : null}

      {stats.completions.length > 0 ? (
        <VegaChart spec={completionsSpec} title={t.completions} language={t.reasonLanguage} />
      ) : (
        // A chart with no data would draw nothing: say why instead.
        <p className="muted" id="no-completions">
          {t.noCompletions}
        </p>
      )}

      <div className="columns">
        <div>
          <h3>{t.dropOut}</h3>
          <p className="muted">{t.dropOutNote}</p>
          {stats.dropOut.length === 0 ? (
            <p>{t.none}</p>
          ) : (
            <table className="console-table" id="drop-out">
              <caption className="visually-hidden">{t.dropOut}</caption>
              <thead>
                <tr>
                  <th scope="col">{t.phase}</th>
                  <th scope="col">{t.sessions}</th>
                </tr>
              </thead>
              <tbody>
                {stats.dropOut.map((d) => (
                  <tr key={`${d.phase}:${d.stimulus ?? ''}:${d.detail ?? ''}`}>
                    <td>{fill(t.phases[d.phase] ?? d.phase, { n: d.stimulus ?? '', detail: (d.phase === 'failure' && d.detail ? t.failReasons[d.detail] : undefined) ?? d.detail ?? '' })}</td>
                    <td>{d.sessions}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h3>{t.timing}</h3>
          <p id="timing-quality">
            {t.passed}
            {t.colon}
            {stats.timing.passed} · {t.failed}
            {t.colon}
            {stats.timing.failed}
          </p>
        </div>
        <div>
          <h3>{t.screening}</h3>
          {judgedRules.length === 0 ? (
            // Like its neighbours, an empty list says so rather than showing an empty table.
            <p id="screening-rules">{t.noRules}</p>
          ) : (
            <table className="console-table" id="screening-rules">
              <caption className="visually-hidden">{t.screening}</caption>
              <thead>
                <tr>
                  <th scope="col">{t.rule}</th>
                  <th scope="col">{t.decides}</th>
                  <th scope="col">{t.passed}</th>
                  <th scope="col">{t.failed}</th>
                </tr>
              </thead>
              <tbody>
                {judgedRules.map((r) => (
                  <tr key={r.rule}>
                    <td>{ruleInWords(r.rule, t.reasonLanguage)}</td>
                    <td>{t.decidesWords[r.kind]}</td>
                    <td>{r.passed}</td>
                    <td>{r.failed}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </div>

      <h3>{t.rejectionsAndExclusions}</h3>
      {stats.rejections.length === 0 ? (
        <p>{t.none}</p>
      ) : (
        <ul id="rejections">
          {stats.rejections.map((r) => (
            <li key={r.sessionId}>
              {t.session} {r.sessionId} ({t.payment}
              {t.colon}
              {t.verdictWords[r.payment]}, {t.analysis}
              {t.colon}
              {t.verdictWords[r.analysis]}){t.colon}
              {r.failed.map((f) => reasonInWords(f, t.reasonLanguage)).join(t.listSeparator)}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
