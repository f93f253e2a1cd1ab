import type { EligibilityRules } from '../types.js';

/** SPEC §5 allowed systems and browsers, as the protocols declare them (screens/eligibility/rules.ts applies them). */

const DESKTOP_OS = ['Linux', 'Mac OS', 'Windows 10', 'Windows 7', 'Windows 8', 'Windows 8.1', 'Windows XP', 'Windows Vista'];
const MOBILE_OS = ['iOS', 'Android OS'];

/** The generic test page: firefox and chrome, chrome alone for a single video (categoryTest 5). */
export const GENERIC_PAGE_ELIGIBILITY: EligibilityRules = {
  browsers: (categoryId) => (categoryId === 5 ? ['chrome'] : ['firefox', 'chrome']),
  oses: [...DESKTOP_OS, ...MOBILE_OS],
};

/** The bubble page: chrome only; no Windows XP or Vista. */
export const BUBBLE_PAGE_ELIGIBILITY: EligibilityRules = {
  browsers: () => ['chrome'],
  oses: [...DESKTOP_OS.filter((os) => os !== 'Windows XP' && os !== 'Windows Vista'), ...MOBILE_OS],
};

/** The piiface page: firefox and chrome. */
export const PIIFACE_PAGE_ELIGIBILITY: EligibilityRules = {
  browsers: () => ['firefox', 'chrome'],
  oses: [...DESKTOP_OS, ...MOBILE_OS],
};
