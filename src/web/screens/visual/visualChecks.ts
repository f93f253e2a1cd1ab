/**
 * Pure answer checks of the visual tests (SPEC §5) and the constants shared with scripts/make-plates.ts,
 * which draws the chart and the plates from these same values.
 */

/** Rows of the Monoyer-style chart, largest first; read top to bottom, left to right they spell the answer. */
export const ACUITY_ROWS = ['R', 'CY', 'HOF', 'MESPA'] as const;
export const ACUITY_EXPECTED = ACUITY_ROWS.join('');

/** Numbers hidden in the four pseudo-isochromatic plates, in the order they are shown. */
export const COLOR_PLATE_NUMBERS = [8, 15, 45, 26] as const;

/** Files under public/ (served from the app's base URL). Plates are named by position, not by their number. */
export const ACUITY_CHART_FILE = 'visual/acuity-chart.png';
export const colorPlateFile = (index: number): string => `visual/plate-${index + 1}.png`;

/**
 * Name of the meta tag the server injects into index.html when a developer bypass is configured
 * (env ACUITY_BYPASS). Its content is the lowercase hex SHA-256 of the bypass value, so the value itself
 * never reaches the client. No tag (or an empty one) means no bypass.
 */
export const ACUITY_BYPASS_META = 'glimpse-acuity-bypass-sha256';

/**
 * What the acuity test measures is whether the letters were read, in order: the answer is compared without its
 * spaces and whatever its case ('r c y h o f m e s p a' reads RCYHOFMESPA). SPEC §5 writes the expected value in
 * capitals without spaces; a participant who types it otherwise has still read it.
 */
export function normaliseAcuityAnswer(answer: string): string {
  return answer.replace(/\s+/g, '').toUpperCase();
}

export function isExpectedAcuityAnswer(answer: string): boolean {
  return normaliseAcuityAnswer(answer) === ACUITY_EXPECTED;
}

/** Reads the bypass hash from the page; null when the server configured none. */
export function readAcuityBypassHash(doc: Pick<Document, 'querySelector'> = document): string | null {
  const content = doc.querySelector(`meta[name="${ACUITY_BYPASS_META}"]`)?.getAttribute('content')?.trim() ?? '';
  return /^[0-9a-fA-F]{64}$/.test(content) ? content.toLowerCase() : null;
}

/** Lowercase hex SHA-256 of the UTF-8 text; null where WebCrypto is unavailable (non-secure http origin). */
export async function sha256Hex(text: string): Promise<string | null> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  const digest = await subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** True for the expected letters, or for the developer bypass when one is configured. */
export async function isAcuityAnswerAccepted(answer: string, bypassHash: string | null): Promise<boolean> {
  if (isExpectedAcuityAnswer(answer)) return true;
  const trimmed = answer.trim();
  if (!bypassHash || trimmed === '') return false;
  return (await sha256Hex(trimmed)) === bypassHash;
}

/** A plate answer is the number typed in digits, surrounding whitespace forgiven ("08" reads as 8). */
export function isPlateAnswerCorrect(answer: string, expected: number): boolean {
  const trimmed = answer.trim();
  return /^\d{1,3}$/.test(trimmed) && Number(trimmed) === expected;
}

/** The colour-vision test passes only when every plate was read correctly, in order. */
export function areColorAnswersCorrect(answers: readonly string[]): boolean {
  return (
    answers.length === COLOR_PLATE_NUMBERS.length &&
    COLOR_PLATE_NUMBERS.every((expected, i) => isPlateAnswerCorrect(answers[i] ?? '', expected))
  );
}
