import { useConsole, type JobStats } from './context.js';
import { dateTime } from './strings.js';

/** How many of the widest intervals the page lists: enough to see what holds the study open, short on a big study. */
const WIDEST_SHOWN = 10;

/**
 * Stopping for precision (docs/quality.md): the study's rule, how many stimuli have reached it, when it closed the
 * study, and the stimuli whose intervals are widest, each against the target.
 */
export function Precision({ precision }: { precision: NonNullable<JobStats['precision']> }) {
  const { t } = useConsole();
  const decimal = (x: number, digits: number) => new Intl.NumberFormat(t.reasonLanguage, { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(x);
  const percent = new Intl.NumberFormat(t.reasonLanguage, { style: 'percent', maximumFractionDigits: 1 }).format(precision.level);
  return (
    <section aria-labelledby="precision-title" id="precision">
      <h3 id="precision-title">{t.precisionTitle}</h3>
      <p>{t.precisionRule(percent, decimal(precision.ciHalfWidth, 2), precision.scale)}</p>
      <p id="precision-progress">
        <progress value={precision.reached} max={Math.max(1, precision.total)} aria-label={t.precisionProgress(precision.reached, precision.total)} />{' '}
        {t.precisionProgress(precision.reached, precision.total)}
      </p>
      {precision.reachedAt ? <p id="precision-reached">{t.precisionReachedAt(dateTime(t, precision.reachedAt))}</p> : null}
      <table className="console-table" id="precision-widest">
        <caption>{t.precisionWidest}</caption>
        <thead>
          <tr>
            <th scope="col">{t.stimulus}</th>
            <th scope="col">{t.answers}</th>
            <th scope="col">{t.estimate}</th>
            <th scope="col">{t.halfWidth}</th>
            <th scope="col">{t.reachedTarget}</th>
          </tr>
        </thead>
        <tbody>
          {precision.stimuli.slice(0, WIDEST_SHOWN).map((s) => (
            <tr key={s.stimulus}>
              <th scope="row">{s.stimulus}</th>
              <td>{s.n}</td>
              <td>{s.estimate === null ? '–' : decimal(s.estimate, 2)}</td>
              <td>{s.halfWidth === null ? t.noInterval : `± ${decimal(s.halfWidth, 2)}`}</td>
              <td>{s.reached ? '✓' : '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
