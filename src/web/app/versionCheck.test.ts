import { describe, expect, it } from 'vitest';
import { isNewer } from './versionCheck.js';

describe('version comparison', () => {
  it('compares dotted versions numerically', () => {
    expect(isNewer('1.8.10', '1.8.9')).toBe(true);
    expect(isNewer('1.9.0', '1.8.9')).toBe(true);
    expect(isNewer('2.0', '1.8.9')).toBe(true);
    expect(isNewer('1.8.9', '1.8.9')).toBe(false);
    expect(isNewer('1.8.8', '1.8.9')).toBe(false);
    expect(isNewer('1.10.0', '1.9.9')).toBe(true);
  });
});
