// @vitest-environment jsdom
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ACUITY_BYPASS_META,
  ACUITY_EXPECTED,
  COLOR_PLATE_NUMBERS,
  areColorAnswersCorrect,
  isAcuityAnswerAccepted,
  isExpectedAcuityAnswer,
  isPlateAnswerCorrect,
  normaliseAcuityAnswer,
  readAcuityBypassHash,
  sha256Hex,
} from './visualChecks.js';

const hashOf = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const pageWith = (head: string) =>
  new DOMParser().parseFromString(`<!doctype html><html><head>${head}</head><body></body></html>`, 'text/html');

describe('acuity answer', () => {
  it('is the chart read in order: RCYHOFMESPA', () => {
    expect(ACUITY_EXPECTED).toBe('RCYHOFMESPA');
    expect(isExpectedAcuityAnswer('RCYHOFMESPA')).toBe(true);
  });

  it('accepts any case and ignores spaces: the letters are what is measured', () => {
    expect(normaliseAcuityAnswer(' r c y hofmespa\n')).toBe('RCYHOFMESPA');
    for (const typed of ['  RCYHOFMESPA \n', 'R C Y H O F M E S P A', 'RCY HOFMESPA', 'rcyhofmespa', 'RcyhofmespA', 'r\tcyhofmespa']) {
      expect(isExpectedAcuityAnswer(typed), typed).toBe(true);
    }
  });

  it('must be every letter, in order', () => {
    expect(isExpectedAcuityAnswer('RCYHOFMESP')).toBe(false);
    expect(isExpectedAcuityAnswer('RCYHOFMESPAA')).toBe(false);
    expect(isExpectedAcuityAnswer('RCYHOFMESAP')).toBe(false);
    expect(isExpectedAcuityAnswer('')).toBe(false);
  });
});

describe('acuity developer bypass', () => {
  it('sha256Hex matches Node’s own SHA-256', async () => {
    expect(await sha256Hex('let-me-in')).toBe(hashOf('let-me-in'));
    expect(await sha256Hex('éàç')).toBe(hashOf('éàç'));
  });

  it('accepts the value whose hash the server published, and nothing else', async () => {
    const hash = hashOf('dev-bypass-42');
    expect(await isAcuityAnswerAccepted('dev-bypass-42', hash)).toBe(true);
    expect(await isAcuityAnswerAccepted(' dev-bypass-42 ', hash)).toBe(true);
    expect(await isAcuityAnswerAccepted('dev-bypass-43', hash)).toBe(false);
    expect(await isAcuityAnswerAccepted('DEV-BYPASS-42', hash)).toBe(false);
    expect(await isAcuityAnswerAccepted('', hashOf(''))).toBe(false);
    expect(await isAcuityAnswerAccepted('RCYHOFMESPA', hash)).toBe(true);
  });

  it('without a configured bypass, only the letters pass', async () => {
    expect(await isAcuityAnswerAccepted('dev-bypass-42', null)).toBe(false);
    expect(await isAcuityAnswerAccepted('RCYHOFMESPA', null)).toBe(true);
  });

  it('reads the hash from the meta tag the server injects', () => {
    const hash = hashOf('x');
    expect(readAcuityBypassHash(pageWith(`<meta name="${ACUITY_BYPASS_META}" content="${hash.toUpperCase()}">`))).toBe(hash);
    expect(readAcuityBypassHash(pageWith(''))).toBeNull();
    expect(readAcuityBypassHash(pageWith(`<meta name="${ACUITY_BYPASS_META}" content="">`))).toBeNull();
    // A plain value instead of a hash is refused: the bypass itself must never be published.
    expect(readAcuityBypassHash(pageWith(`<meta name="${ACUITY_BYPASS_META}" content="let-me-in">`))).toBeNull();
  });
});

describe('colour plates', () => {
  it('hide 8, 15, 45 and 26, in that order', () => {
    expect(COLOR_PLATE_NUMBERS).toEqual([8, 15, 45, 26]);
  });

  it('a plate answer is the number in digits', () => {
    expect(isPlateAnswerCorrect('15', 15)).toBe(true);
    expect(isPlateAnswerCorrect(' 15 ', 15)).toBe(true);
    expect(isPlateAnswerCorrect('08', 8)).toBe(true);
    expect(isPlateAnswerCorrect('51', 15)).toBe(false);
    expect(isPlateAnswerCorrect('1 5', 15)).toBe(false);
    expect(isPlateAnswerCorrect('15.0', 15)).toBe(false);
    expect(isPlateAnswerCorrect('fifteen', 15)).toBe(false);
    expect(isPlateAnswerCorrect('', 8)).toBe(false);
  });

  it('the test passes only with all four plates right, in order', () => {
    expect(areColorAnswersCorrect(['8', '15', '45', '26'])).toBe(true);
    expect(areColorAnswersCorrect(['8', '15', '45', '29'])).toBe(false);
    expect(areColorAnswersCorrect(['15', '8', '45', '26'])).toBe(false);
    expect(areColorAnswersCorrect(['8', '15', '45'])).toBe(false);
    expect(areColorAnswersCorrect(['8', '15', '45', '26', '26'])).toBe(false);
  });
});
