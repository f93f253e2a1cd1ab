import { describe, expect, it } from 'vitest';
import UAParser from 'ua-parser-js';
import { en } from '../../i18n/en.js';
import { fr } from '../../i18n/fr.js';
import { BUBBLE_PAGE_ELIGIBILITY, GENERIC_PAGE_ELIGIBILITY, PIIFACE_PAGE_ELIGIBILITY } from '../../../protocols/common/eligibility.js';
import { browserFamily, checkEligibility, osFamily, refreshMeetsMinimum, refreshRuleFailure, type EligibilityInput } from './rules.js';
import { zoomPercent } from '../../flow/windowInfo.js';

const HEADLESS_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36';

function input(patch: Partial<EligibilityInput> = {}): EligibilityInput {
  return {
    rules: GENERIC_PAGE_ELIGIBILITY,
    browserName: 'Chrome',
    browserVersion: '120.0',
    osName: 'Windows',
    osVersion: '10',
    screen: { width: 1920, height: 1080 },
    zoom: 100,
    job: { category_id: 1, targetScreenSizeHeight: 720, targetScreenSizeWidth: 1280, maxScreenSizeHeight: 2160, maxScreenSizeWidth: 3840 },
    swapSizes: false,
    ...patch,
  };
}

const byId = (results: ReturnType<typeof checkEligibility>) => Object.fromEntries(results.map((r) => [r.id, r]));

describe('eligibility rules', () => {
  it('passes a usual desktop Chrome on a 1080p screen', () => {
    const results = checkEligibility(input(), en);
    expect(results.map((r) => r.id)).toEqual(['browser', 'os', 'maxSize', 'minSize', 'zoom']);
    expect(results.every((r) => r.pass && r.message === null)).toBe(true);
  });

  it('treats headless Chromium (ua-parser 1.x "Chrome Headless") on Linux as chrome/Linux', () => {
    const ua = new UAParser(HEADLESS_UA).getResult();
    expect(ua.browser.name).toBe('Chrome Headless');
    const r = byId(checkEligibility(input({ browserName: ua.browser.name, osName: ua.os.name, osVersion: ua.os.version, screen: { width: 1280, height: 720 } }), en));
    expect(r.browser!.pass).toBe(true);
    expect(r.os!.pass).toBe(true);
    expect(r.minSize!.pass).toBe(true);
  });

  it('refuses other browsers with the exact message and list', () => {
    const r = byId(checkEligibility(input({ browserName: 'Edge' }), en));
    expect(r.browser!.pass).toBe(false);
    expect(r.browser!.message).toBe('Please use one of the following browser: firefox, chrome.');
  });

  it('allows chrome alone for category 5 and on the bubble page', () => {
    expect(GENERIC_PAGE_ELIGIBILITY.browsers(5)).toEqual(['chrome']);
    expect(BUBBLE_PAGE_ELIGIBILITY.browsers(1)).toEqual(['chrome']);
    expect(PIIFACE_PAGE_ELIGIBILITY.browsers(5)).toEqual(['firefox', 'chrome']);
    const r = byId(checkEligibility(input({ browserName: 'Firefox', job: { ...input().job, category_id: 5 } }), en));
    expect(r.browser!.message).toBe('Please use one of the following browser: chrome.');
  });

  it('refuses an OS outside the list with the exact message', () => {
    const r = byId(checkEligibility(input({ osName: 'Chromium OS', osVersion: '14541' }), en));
    expect(r.os!.pass).toBe(false);
    expect(r.os!.message).toBe(
      'Please use one of the following OS: Linux, Mac OS, Windows 10, Windows 7, Windows 8, Windows 8.1, Windows XP, Windows Vista, iOS, Android OS.',
    );
  });

  it('drops Windows XP and Vista on the bubble page', () => {
    expect(byId(checkEligibility(input({ osVersion: 'XP' }), en)).os!.pass).toBe(true);
    expect(byId(checkEligibility(input({ rules: BUBBLE_PAGE_ELIGIBILITY, osVersion: 'XP' }), en)).os!.pass).toBe(false);
  });

  it('normalises OS names from ua-parser', () => {
    expect(osFamily('Ubuntu', undefined)).toBe('Linux');
    expect(osFamily('Android', '13')).toBe('Android OS');
    expect(osFamily('Windows', '8.1')).toBe('Windows 8.1');
    expect(osFamily('Mac OS', '10.15.7')).toBe('Mac OS');
    expect(browserFamily('Mobile Firefox')).toBe('firefox');
    expect(browserFamily('Chromium')).toBe('chrome');
    expect(browserFamily('Safari')).toBe('safari');
  });

  it('gives the min-size message as height x width with the target', () => {
    const r = byId(checkEligibility(input({ screen: { width: 1024, height: 768 }, job: { ...input().job, targetScreenSizeHeight: 1080, targetScreenSizeWidth: 1920 } }), en));
    expect(r.minSize!.pass).toBe(false);
    expect(r.minSize!.message).toBe('Please use a larger screen than the current one at 768x1024. Targeted minimum size is 1080x1920.');
    // Next to each check: the screen, width first, said so, and the study's target beside it (issue 35).
    expect(r.minSize!.value).toBe('width × height: 1024 × 768, at least 1920 × 1080');
    expect(r.maxSize!.value).toBe('width × height: 1024 × 768, at most 3840 × 2160');
    const french = byId(checkEligibility(input({ screen: { width: 1024, height: 768 } }), fr));
    expect([french.minSize!.value, french.maxSize!.value]).toEqual(['largeur × hauteur : 1024 × 768, au moins 1280 × 720', 'largeur × hauteur : 1024 × 768, au plus 3840 × 2160']);
    expect(r.maxSize!.pass).toBe(true);
  });

  it('gives the max-size message', () => {
    const r = byId(checkEligibility(input({ screen: { width: 3840, height: 2160 }, job: { ...input().job, maxScreenSizeHeight: 1440, maxScreenSizeWidth: 2560 } }), en));
    expect(r.maxSize!.message).toBe('Please use a smaller screen than the current one at 2160x3840. Targeted maximum size is 1440x2560.');
  });

  it('fails min size when only one dimension is short', () => {
    const r = byId(checkEligibility(input({ screen: { width: 1920, height: 700 } }), en));
    expect(r.minSize!.pass).toBe(false);
  });

  it('swaps the job sizes in portrait/horizontal phone modes', () => {
    const phone = { width: 390, height: 844 };
    const job = { category_id: 1, targetScreenSizeHeight: 360, targetScreenSizeWidth: 640, maxScreenSizeHeight: 500, maxScreenSizeWidth: 1000 };
    expect(byId(checkEligibility(input({ screen: phone, job }), en)).minSize!.pass).toBe(false);
    const swapped = byId(checkEligibility(input({ screen: phone, job, swapSizes: true }), en));
    expect(swapped.minSize!.pass).toBe(true);
    expect(swapped.maxSize!.pass).toBe(true);
    // The target shown is the one checked: the job's, swapped.
    expect(swapped.minSize!.value).toBe('width × height: 390 × 844, at least 360 × 640');
    const small = byId(checkEligibility(input({ screen: { width: 300, height: 600 }, job, swapSizes: true }), en));
    expect(small.minSize!.message).toBe('Please use a larger screen than the current one at 600x300. Targeted minimum size is 640x360.');
  });

  it('treats a zero maximum as no limit', () => {
    const job = { ...input().job, maxScreenSizeHeight: 0, maxScreenSizeWidth: 0 };
    expect(byId(checkEligibility(input({ screen: { width: 7680, height: 4320 }, job }), en)).maxSize).toMatchObject({ pass: true, value: 'width × height: 7680 × 4320, no maximum' });
    const wide = byId(checkEligibility(input({ screen: { width: 7680, height: 1080 }, job: { ...job, maxScreenSizeHeight: 1440 } }), en)).maxSize!;
    expect(wide).toMatchObject({ pass: true, value: 'width × height: 7680 × 1080, at most ∞ × 1440' });
  });

  it('checks the page zoom', () => {
    expect(zoomPercent(1280, 1280)).toBe(100);
    expect(zoomPercent(1936, 1920)).toBe(101);
    expect(zoomPercent(1920, 1745)).toBe(110);
    expect(zoomPercent(0, 1280)).toBe(100);
    expect(byId(checkEligibility(input({ zoom: 101 }), en)).zoom!.pass).toBe(true);
    const r = byId(checkEligibility(input({ zoom: 110 }), en));
    expect(r.zoom!.pass).toBe(false);
    expect(r.zoom!.message).toBe('Please set the zoom of the page to 100% (it is 110% now), then reload the page.');
  });

  describe('minimum refresh rate (job.minRefreshHz)', () => {
    it('is checked again before each trial with the same rule (a window moved to a slower screen): refreshMeetsMinimum', () => {
      expect([refreshMeetsMinimum(120, 1000 / 144), refreshMeetsMinimum(120, 1000 / 119), refreshMeetsMinimum(120, 1000 / 60), refreshMeetsMinimum(undefined, 1000 / 30), refreshMeetsMinimum(120, null)]).toEqual([true, true, false, true, false]);
      expect(refreshRuleFailure(120, 1000 / 60, en)).toBe('Please use a screen that refreshes at least 120 times per second (this one: 60.0 Hz).');
      expect(refreshRuleFailure(120, 1000 / 144, en)).toBeNull();
    });
    const job = { ...input().job, minRefreshHz: 120 };
    it('adds no line when the job sets no minimum', () => {
      expect(checkEligibility(input({ refreshMs: 1000 / 30 }), en).map((r) => r.id)).not.toContain('refresh');
    });
    it('refuses a 30 Hz and a 60 Hz display for a 120 Hz study, with the rate measured, in English and French', () => {
      const at30 = byId(checkEligibility(input({ job, refreshMs: 1000 / 30 }), en)).refresh!;
      expect(at30).toEqual({ id: 'refresh', value: '30.0 Hz', pass: false, message: 'Please use a screen that refreshes at least 120 times per second (this one: 30.0 Hz).' });
      const at60 = byId(checkEligibility(input({ job, refreshMs: 1000 / 59.94 }), fr)).refresh!;
      expect(at60.pass).toBe(false);
      expect(at60.message).toBe('Veuillez utiliser un écran rafraîchi au moins 120 fois par seconde (celui-ci : 59.9 Hz).');
    });
    it('accepts 144 and 240 Hz, and 119.88 Hz as a 120 Hz display (1 % tolerance)', () => {
      for (const hz of [144, 240, 119.88]) {
        const line = byId(checkEligibility(input({ job, refreshMs: 1000 / hz }), en)).refresh!;
        expect(line).toMatchObject({ pass: true, message: null });
      }
      expect(byId(checkEligibility(input({ job, refreshMs: 1000 / 144 }), en)).refresh!.value).toBe('144 Hz');
      expect(byId(checkEligibility(input({ job, refreshMs: 1000 / 118 }), en)).refresh!.pass).toBe(false);
    });
    it('refuses when the rate could not be measured (no frames: a hidden tab)', () => {
      expect(byId(checkEligibility(input({ job, refreshMs: null }), en)).refresh).toMatchObject({ value: '? Hz', pass: false });
    });
  });
});

describe('screen sizes in device pixels (docs/pixels.md)', () => {
  const hd = { ...input().job, targetScreenSizeHeight: 1080, targetScreenSizeWidth: 1920 };
  it('a 1920×1080 panel at 125 % display scaling (screen 1536×864) passes a 1920×1080 minimum, shown in device pixels', () => {
    const r = byId(checkEligibility(input({ screen: { width: 1536, height: 864 }, pixelRatio: 1.25, job: hd }), en));
    expect(r.minSize).toEqual({ id: 'minSize', value: 'width × height: 1920 × 1080, at least 1920 × 1080', pass: true, message: null });
  });

  it('the same screen at 100 % scaling is 1536×864 device pixels and is refused', () => {
    const r = byId(checkEligibility(input({ screen: { width: 1536, height: 864 }, pixelRatio: 1, job: hd }), en));
    expect(r.minSize!.message).toBe('Please use a larger screen than the current one at 864x1536. Targeted minimum size is 1080x1920.');
  });

  it('a Retina 1440×900 screen is 2880×1800 device pixels against a 2560×1440 maximum', () => {
    const job = { ...input().job, maxScreenSizeHeight: 1440, maxScreenSizeWidth: 2560 };
    expect(byId(checkEligibility(input({ screen: { width: 1440, height: 900 }, pixelRatio: 2, job }), en)).maxSize!.message).toBe(
      'Please use a smaller screen than the current one at 1800x2880. Targeted maximum size is 1440x2560.',
    );
  });
});
