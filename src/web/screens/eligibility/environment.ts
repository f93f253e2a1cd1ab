import UAParser from 'ua-parser-js';
import type { BcheckBody } from '../../../contract/payloads.js';
import { zoomPercent } from '../../flow/windowInfo.js';
import type { EligibilityRules } from '../../../protocols/types.js';
import type { EligibilityInput, EligibilityJob } from './rules.js';

/** What the eligibility rules need, read from the browser (ua-parser-js 1.x, MIT). */
export function measureEnvironment(win: Window, rules: EligibilityRules, job: EligibilityJob, swapSizes: boolean): EligibilityInput {
  const ua = new UAParser(win.navigator.userAgent).getResult();
  return {
    rules,
    browserName: ua.browser.name,
    browserVersion: ua.browser.version,
    osName: ua.os.name,
    osVersion: ua.os.version,
    screen: { width: win.screen.width, height: win.screen.height },
    pixelRatio: win.devicePixelRatio || 1,
    zoom: zoomPercent(win.outerWidth, win.innerWidth),
    job,
    swapSizes,
  };
}

/** The §3 browser-check payload for what was measured. */
export function bcheckBody(env: EligibilityInput): BcheckBody {
  const cut = (s: string) => s.slice(0, 200);
  return {
    b_name: cut(env.browserName ?? 'unknown'),
    b_version: cut(env.browserVersion ?? ''),
    b_os: cut([env.osName, env.osVersion].filter(Boolean).join(' ') || 'unknown'),
    screen_size: `${env.screen.width}x${env.screen.height}`,
  };
}
