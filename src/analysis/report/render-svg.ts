/** Vega-Lite spec → static SVG, in Node and without network: vega-lite compiles, vega renders headless. */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/** A loader that refuses every URL: a chart may only use inline data and data: URLs. */
const offlineLoader = vega.loader();
offlineLoader.load = async (uri: string) => {
  throw new Error(`charts are rendered offline; refused to load ${uri}`);
};
offlineLoader.sanitize = async (uri: string) => {
  if (!uri.startsWith('data:')) throw new Error(`charts are rendered offline; refused to load ${uri}`);
  return { href: uri };
};

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none', loader: offlineLoader });
  try {
    const svg = await view.toSVG();
    // Inline SVG in HTML needs no namespace declarations; dropping them keeps the page free of any URL.
    return svg
      .replace(/ xmlns(:xlink)?="http:\/\/www\.w3\.org\/[^"]*"/g, '')
      .replace(/xlink:href=/g, 'href=');
  } finally {
    view.finalize();
  }
}
