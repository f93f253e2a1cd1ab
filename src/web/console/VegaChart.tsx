import { useEffect, useRef } from 'react';

/**
 * A chart from a Vega-Lite specification, drawn by vega itself: the report's charts (the same specifications the
 * HTML report renders on the server) and the console's own. vega evaluates expressions with vega-interpreter (no
 * eval, so the page's Content-Security-Policy holds) and draws on a canvas (no inline styles).
 */
export function VegaChart({ spec, title }: { spec: object; title: string }) {
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
      const created = new vega.View(runtime, { expr: interpreter.expressionInterpreter as never, renderer: 'canvas', container: container.current, hover: true });
      view = created;
      await created.runAsync();
    })();
    return () => {
      cancelled = true;
      view?.finalize();
    };
  }, [spec]);
  return (
    <figure className="chart">
      <div ref={container} role="img" aria-label={title} />
      <figcaption>{title}</figcaption>
    </figure>
  );
}
