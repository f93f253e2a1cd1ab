import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every relative link of README.md and docs/ resolves: the file (or folder) exists, and an anchor names a heading of
 * the target page as GitHub slugs it. External links (http, https, mailto) are not fetched.
 */

const ROOT = process.cwd();

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The text outside fenced code blocks, and each line with its inline code spans blanked. */
function prose(text: string): { lines: string[]; joined: string } {
  const lines: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      lines.push('');
      continue;
    }
    lines.push(fence === null ? line.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length)) : '');
  }
  return { lines, joined: lines.join('\n') };
}

/** GitHub's heading anchor: markup dropped, lower case, punctuation removed, spaces to hyphens, repeats numbered. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`|\*\*|__/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

const anchorCache = new Map<string, Set<string>>();

function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file);
  if (cached) return cached;
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fence: string | null = null;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      continue;
    }
    const heading = fence === null ? /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line) : null;
    if (!heading) continue;
    const base = slug(heading[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

interface Link {
  file: string;
  line: number;
  target: string;
}

function relativeLinks(file: string): Link[] {
  const { joined } = prose(readFileSync(file, 'utf8'));
  const links: Link[] = [];
  for (const match of joined.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const line = joined.slice(0, match.index ?? 0).split('\n').length;
    links.push({ file: relative(ROOT, file), line, target });
  }
  return links;
}

function problem(link: Link): string | null {
  const [pathPart, anchor] = link.target.split('#', 2);
  const from = join(ROOT, link.file);
  const target = pathPart === '' ? from : resolve(dirname(from), decodeURIComponent(pathPart));
  if (!target.startsWith(ROOT)) return 'leaves the repository';
  if (!existsSync(target)) return 'no such file';
  if (anchor === undefined || anchor === '') return null;
  if (!target.endsWith('.md')) return null;
  return anchorsOf(target).has(decodeURIComponent(anchor)) ? null : `no heading #${anchor} in ${relative(ROOT, target)}`;
}

describe('documentation links', () => {
  const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];

  it('slugs headings as GitHub does', () => {
    expect(slug('Presentation, options and records (stage)')).toBe('presentation-options-and-records-stage');
    expect(slug('`npm run bench:api`')).toBe('npm-run-benchapi');
    expect(slug("The SPEC's wording")).toBe('the-specs-wording');
    expect(slug('SQLite durability (`SQLITE_SYNCHRONOUS`)')).toBe('sqlite-durability-sqlite_synchronous');
    expect(slug('Live statistics cost O(1) per participant')).toBe('live-statistics-cost-o1-per-participant');
  });

  it('README.md points to every page of docs/', () => {
    const readmeTargets = new Set(relativeLinks(join(ROOT, 'README.md')).map((l) => l.target.split('#')[0]));
    const pages = markdownFiles(join(ROOT, 'docs')).map((f) => relative(ROOT, f));
    expect(pages.filter((page) => !readmeTargets.has(page))).toEqual([]);
  });

  it('every relative link and anchor in README.md and docs/ resolves', () => {
    const broken = files
      .flatMap(relativeLinks)
      .map((link) => ({ link, why: problem(link) }))
      .filter((b) => b.why !== null)
      .map(({ link, why }) => `${link.file}:${link.line} ${link.target}: ${why}`);
    expect(broken).toEqual([]);
  });
});
