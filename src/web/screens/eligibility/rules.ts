import type { EligibilityRules } from '../../../protocols/types.js';
import type { Strings } from '../../i18n/en.js';
import { fill } from '../../i18n/format.js';

/**
 * Eligibility rules of SPEC §5 as pure functions: the screen measures the environment, these decide.
 * Names are normalised from ua-parser-js 1.x results (see `browserFamily` / `osFamily`).
 */

export interface ScreenSize {
  width: number;
  height: number;
}

export interface EligibilityJob {
  category_id: number;
  targetScreenSizeHeight: number;
  targetScreenSizeWidth: number;
  maxScreenSizeHeight: number;
  maxScreenSizeWidth: number;
  /** Optional minimum refresh rate (Hz); absent: no refresh check. */
  minRefreshHz?: number;
}

export interface EligibilityInput {
  /** The protocol's allowed browsers and systems. */
  rules: EligibilityRules;
  browserName: string | undefined;
  browserVersion: string | undefined;
  osName: string | undefined;
  osVersion: string | undefined;
  /** `screen.width` × `screen.height`, CSS px. */
  screen: ScreenSize;
  /**
   * window.devicePixelRatio (default 1). The size rules compare device pixels, screen × ratio: a 1920×1080 panel
   * at 125 % display scaling reports a 1536×864 screen, and has every pixel a 1920×1080 study needs.
   */
  pixelRatio?: number;
  /** Page zoom in percent (see `zoomPercent`). */
  zoom: number;
  job: EligibilityJob;
  /** The display's refresh period measured from frame intervals (ms), null if it could not be measured; only
   * needed when the job asks for a minimum refresh rate. */
  refreshMs?: number | null;
  /** Phone experiment in portrait (vl) or horizontal (hz) mode: the job's sizes are read with width and height swapped. */
  swapSizes: boolean;
}

export type CheckId = 'browser' | 'os' | 'maxSize' | 'minSize' | 'zoom' | 'refresh';

export interface CheckResult {
  id: CheckId;
  /** What was measured, shown next to the check. */
  value: string;
  pass: boolean;
  /** The participant-facing message when the check fails. */
  message: string | null;
}

/**
 * Browser family from the ua-parser name. Headless Chromium says 'Chrome Headless' and Chromium builds say
 * 'Chromium': both are the Chrome engine, so they count as chrome (the e2e tests run headless Chromium).
 */
export function browserFamily(name: string | undefined): string {
  const n = (name ?? '').toLowerCase();
  if (n === 'chrome' || n === 'chrome headless' || n === 'mobile chrome' || n === 'chrome webview' || n === 'chromium') return 'chrome';
  if (n === 'firefox' || n === 'mobile firefox') return 'firefox';
  return n || 'unknown';
}

// ua-parser names Linux distributions when the user agent does (e.g. Firefox on Ubuntu); they are Linux.
const LINUX_DISTRIBUTIONS = new Set(
  ['linux', 'ubuntu', 'debian', 'fedora', 'mint', 'arch', 'gentoo', 'opensuse', 'suse', 'centos', 'redhat', 'red hat', 'slackware', 'mandriva', 'kubuntu', 'xubuntu', 'lubuntu', 'manjaro', 'elementary os', 'zenwalk', 'pclinuxos', 'mageia', 'deepin'],
);

/** OS name in the vocabulary of the allowed list: 'Windows 10', 'Mac OS', 'Linux', 'iOS', 'Android OS', ... */
export function osFamily(name: string | undefined, version: string | undefined): string {
  const n = name ?? '';
  if (n === 'Windows') return version ? `Windows ${version}` : 'Windows';
  if (n === 'Android') return 'Android OS';
  if (LINUX_DISTRIBUTIONS.has(n.toLowerCase())) return 'Linux';
  return n || 'unknown';
}

/** Within ±5 %: window borders of a few pixels pass, the 90 % and 110 % browser zoom steps do not. */
export const ZOOM_TOLERANCE_PERCENT = 5;

/** A display within 1 % of the minimum passes: 59.94 Hz is a 60 Hz display, 119.88 Hz a 120 Hz one. */
export const REFRESH_TOLERANCE = 0.01;

/** The refresh line, when the job asks for a minimum rate. */
/**
 * The study's minimum refresh rate against the measured period: null when it holds (or there is none), else the
 * message to show. The eligibility screen checks it once; the test checks it again before each trial, for a window
 * moved to a slower screen mid-study (issue 36).
 */
export function refreshRuleFailure(minHz: number | undefined, refreshMs: number | null | undefined, t: Strings): string | null {
  return refreshCheck(minHz, refreshMs, t)[0]?.message ?? null;
}

/** The study's minimum refresh rate holds at this period (or the study has none). */
export function refreshMeetsMinimum(minHz: number | undefined, refreshMs: number | null | undefined): boolean {
  if (minHz === undefined) return true;
  const hz = refreshMs && refreshMs > 0 && Number.isFinite(refreshMs) ? 1000 / refreshMs : null;
  return hz !== null && hz >= minHz * (1 - REFRESH_TOLERANCE);
}

function refreshCheck(minHz: number | undefined, refreshMs: number | null | undefined, t: Strings): CheckResult[] {
  if (minHz === undefined) return [];
  const hz = refreshMs && refreshMs > 0 && Number.isFinite(refreshMs) ? 1000 / refreshMs : null;
  const pass = refreshMeetsMinimum(minHz, refreshMs);
  const shown = hz === null ? '?' : hz.toFixed(hz >= 100 ? 0 : 1);
  return [{ id: 'refresh', value: `${shown} Hz`, pass, message: pass ? null : fill(t.eligibilityRefreshFail, { min: minHz, hz: shown }) }];
}

function sizeTarget(height: number, width: number, swap: boolean): { th: number; tw: number } {
  return swap ? { th: width, tw: height } : { th: height, tw: width };
}

/** The screen in device pixels (screen × ratio, rounded: 1536 × 1.25 = 1920). */
export function deviceScreen(screen: ScreenSize, pixelRatio = 1): ScreenSize {
  return { width: Math.round(screen.width * pixelRatio), height: Math.round(screen.height * pixelRatio) };
}

export function checkEligibility(input: EligibilityInput, t: Strings): CheckResult[] {
  const { job } = input;
  const screen = deviceScreen(input.screen, input.pixelRatio);
  const browsers = input.rules.browsers(job.category_id);
  const oses = input.rules.oses;
  const browser = browserFamily(input.browserName);
  const os = osFamily(input.osName, input.osVersion);
  const current = { h: screen.height, w: screen.width };
  const min = sizeTarget(job.targetScreenSizeHeight, job.targetScreenSizeWidth, input.swapSizes);
  const max = sizeTarget(job.maxScreenSizeHeight, job.maxScreenSizeWidth, input.swapSizes);
  // A zero target means "no limit" in that dimension (a zero maximum would exclude every screen).
  const minPass = screen.height >= min.th && screen.width >= min.tw;
  const maxPass = (max.th === 0 || screen.height <= max.th) && (max.tw === 0 || screen.width <= max.tw);
  const zoomPass = Math.abs(input.zoom - 100) <= ZOOM_TOLERANCE_PERCENT;
  // The screen next to its target, width first; a zero maximum dimension has no limit (∞).
  const minText = fill(t.eligibilityMinSizeValue, { ...current, ...min });
  const unlimited = (n: number) => (n === 0 ? '∞' : n);
  const maxText =
    max.th === 0 && max.tw === 0
      ? fill(t.eligibilityMaxSizeNone, current)
      : fill(t.eligibilityMaxSizeValue, { ...current, th: unlimited(max.th), tw: unlimited(max.tw) });
  return [
    {
      id: 'browser',
      value: [input.browserName, input.browserVersion].filter(Boolean).join(' ') || 'unknown',
      pass: browsers.includes(browser),
      message: browsers.includes(browser) ? null : fill(t.eligibilityBrowserFail, { list: browsers.join(', ') }),
    },
    {
      id: 'os',
      value: os,
      pass: oses.includes(os),
      message: oses.includes(os) ? null : fill(t.eligibilityOsFail, { list: oses.join(', ') }),
    },
    { id: 'maxSize', value: maxText, pass: maxPass, message: maxPass ? null : fill(t.eligibilityMaxFail, { ...current, ...max }) },
    { id: 'minSize', value: minText, pass: minPass, message: minPass ? null : fill(t.eligibilityMinFail, { ...current, ...min }) },
    { id: 'zoom', value: `${input.zoom}%`, pass: zoomPass, message: zoomPass ? null : fill(t.eligibilityZoomFail, { zoom: input.zoom }) },
    ...refreshCheck(job.minRefreshHz, input.refreshMs, t),
  ];
}

export function allPass(results: CheckResult[]): boolean {
  return results.every((r) => r.pass);
}
