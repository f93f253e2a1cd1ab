/**
 * The `Range` request header of RFC 9110 §14.1–14.2, checked before the file is sent.
 *
 *   Range          = ranges-specifier
 *   ranges-specifier = range-unit "=" range-set        (range-unit is case-insensitive)
 *   range-set      = 1#range-spec                       (a list: OWS around commas, empty elements ignored)
 *   range-spec     = int-range / suffix-range / other-range
 *   int-range      = first-pos "-" [ last-pos ]         (invalid when last-pos < first-pos)
 *   suffix-range   = "-" suffix-length
 *
 * A header that is not a valid `bytes` ranges-specifier (`bytes=abc`, `items=0-1`, `bytes=5-3`) is ignored: the
 * answer is the whole representation (200), as §14.2 allows ("MAY ignore") and as the probe of issue 14 asked.
 * A valid one is handed on in a canonical form (`bytes=` in lower case, no spaces), and the file sender decides
 * between 206 (one satisfiable range), 200 (If-Range stale, or several ranges) and 416 (none satisfiable).
 */

/** One range-spec: `first-last`, `first-` (last = undefined) or a suffix `-length` (first = undefined). */
export interface RangeSpec {
  first?: number;
  last?: number;
  suffix?: number;
}

/** Positions past 2^53 − 1 mean the same as 2^53 − 1 to any file this server holds. */
const position = (digits: string) => Math.min(Number(digits), Number.MAX_SAFE_INTEGER);

const INT_RANGE = /^(\d+)-(\d*)$/;
const SUFFIX_RANGE = /^-(\d+)$/;

/** The range-specs of a valid `bytes` Range header, or null when the header is to be ignored. */
export function parseBytesRangeHeader(header: string | undefined): RangeSpec[] | null {
  if (header === undefined) return null;
  const eq = header.indexOf('=');
  if (eq < 0) return null;
  const unit = header.slice(0, eq).trim();
  if (unit.toLowerCase() !== 'bytes') return null;
  const specs: RangeSpec[] = [];
  for (const element of header.slice(eq + 1).split(',')) {
    const text = element.replace(/^[ \t]+|[ \t]+$/g, '');
    if (text === '') continue; // an empty list element (RFC 9110 §5.6.1.2)
    const int = INT_RANGE.exec(text);
    if (int) {
      if (int[2] !== '' && BigInt(int[2]) < BigInt(int[1])) return null;
      specs.push({ first: position(int[1]), last: int[2] === '' ? undefined : position(int[2]) });
      continue;
    }
    const suffix = SUFFIX_RANGE.exec(text);
    if (suffix) {
      specs.push({ suffix: position(suffix[1]) });
      continue;
    }
    return null; // other-range or garbage: not a bytes range-set
  }
  return specs.length > 0 ? specs : null;
}

/** A Range header the file sender reads exactly as parsed here. */
export function canonicalBytesRange(specs: readonly RangeSpec[]): string {
  return `bytes=${specs.map((s) => (s.suffix !== undefined ? `-${s.suffix}` : `${s.first}-${s.last ?? ''}`)).join(',')}`;
}
