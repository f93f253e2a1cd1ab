import { isFullscreen } from './windowInfo.js';

/**
 * The `logs` text of a bubble or piiface rating (SPEC §3: "a text of inner, outer and screen sizes plus a
 * fullscreen flag"). One exact format, shared by both pages so the exports read alike:
 *
 *   inner:1280x720;outer:1280x800;screen:1920x1080;fullscreen:0
 *
 * `key:value` fields joined by ';', sizes as WIDTHxHEIGHT in CSS pixels (whole numbers), fullscreen 1 or 0 by the
 * SPEC §5 rule (inner height + 2 >= outer height). A page may append its own `key:value` fields after these four
 * (piiface adds `media:missing` when the image could not be shown); readers should look fields up by key.
 */

export interface SizeLogFields {
  inner: { width: number; height: number };
  outer: { width: number; height: number };
  screen: { width: number; height: number };
  fullscreen: boolean;
}

const size = (s: { width: number; height: number }) => `${Math.round(s.width)}x${Math.round(s.height)}`;

export function formatSizeLog(fields: SizeLogFields, extra: Record<string, string> = {}): string {
  const parts = [
    `inner:${size(fields.inner)}`,
    `outer:${size(fields.outer)}`,
    `screen:${size(fields.screen)}`,
    `fullscreen:${fields.fullscreen ? 1 : 0}`,
    ...Object.entries(extra).map(([key, value]) => `${key}:${value}`),
  ];
  return parts.join(';');
}

/** The size text of this window right now. */
export function windowSizeLog(win: Window = window, extra?: Record<string, string>): string {
  return formatSizeLog(
    {
      inner: { width: win.innerWidth, height: win.innerHeight },
      outer: { width: win.outerWidth, height: win.outerHeight },
      screen: { width: win.screen.width, height: win.screen.height },
      fullscreen: isFullscreen(win),
    },
    extra,
  );
}

/** The fields of a size text by key (for tests and analysis scripts); null when it is not one. */
export function parseSizeLog(text: string): Record<string, string> | null {
  const fields: Record<string, string> = {};
  for (const part of text.split(';')) {
    const colon = part.indexOf(':');
    if (colon <= 0) return null;
    fields[part.slice(0, colon)] = part.slice(colon + 1);
  }
  const sized = ['inner', 'outer', 'screen'].every((k) => /^\d+x\d+$/.test(fields[k] ?? ''));
  return sized && (fields.fullscreen === '0' || fields.fullscreen === '1') ? fields : null;
}
