import { useEffect, useRef } from 'react';

/**
 * A chart from a Vega-Lite specification, drawn by vega itself: the report's charts (the same specifications the
 * HTML report renders on the server) and the console's own. vega evaluates expressions with vega-interpreter (no
 * eval, so the page's Content-Security-Policy holds) and draws on a canvas (no inline styles).
 */
export function VegaChart({ spec, title, language, titleLanguage }: { spec: object; title: string; language: string; titleLanguage?: string }) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let view: { finalize(): void } | null = null;
    let cancelled = false;
    void (async () => {
      const [vega, vegaLite, interpreter] = await Promise.all([import('vega'), import('vega-lite'), import('vega-interpreter')]);
      if (cancelled || !container.current) return;
      const vlSpec = spec as { $schema?: string };
      const vgSpec = vlSpec.$schema?.includes('vega-lite') ? vegaLite.compile(spec as never).spec : spec;
      const runtime = vega.parse(vgSpec as never, undefined, { ast: true });
      const created = new vega.View(runtime, { expr: interpreter.expressionInterpreter as never, renderer: 'canvas', container: container.current, hover: true, locale: vegaLocale(language) as never });
      view = created;
      await created.runAsync();
    })();
    return () => {
      cancelled = true;
      view?.finalize();
    };
  }, [spec, language]);
  return (
    <figure className="chart" lang={titleLanguage}>
      <div ref={container} role="img" aria-label={title} />
      <figcaption>{title}</figcaption>
    </figure>
  );
}

/** Month and day names, decimal mark and grouping of the page's language, for the axes vega draws (d3's locale shape). */
function vegaLocale(language: string) {
  const names = (count: number, options: Intl.DateTimeFormatOptions, date: (i: number) => number) =>
    Array.from({ length: count }, (_, i) => new Intl.DateTimeFormat(language, { ...options, timeZone: 'UTC' }).format(date(i)));
  const month = (i: number) => Date.UTC(2001, i, 15);
  const day = (i: number) => Date.UTC(2001, 0, 7 + i); // 7 January 2001 was a Sunday, d3's first day
  const parts = new Intl.NumberFormat(language).formatToParts(12345.5);
  return {
    number: { decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.', thousands: parts.find((p) => p.type === 'group')?.value ?? ',', grouping: [3], currency: ['', ''] },
    time: {
      // Only the names are the language's: the console's charts give their own formats, ISO where they do not.
      dateTime: '%Y-%m-%d %H:%M:%S',
      date: '%Y-%m-%d',
      time: '%H:%M:%S',
      periods: ['AM', 'PM'],
      days: names(7, { weekday: 'long' }, day),
      shortDays: names(7, { weekday: 'short' }, day),
      months: names(12, { month: 'long' }, month),
      shortMonths: names(12, { month: 'short' }, month),
    },
  };
}
