import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_NAMES } from '../../src/protocols/registry.js';

/**
 * The boundaries the codebase promises (README "Project layout"), checked on the source text. The import graph is
 * checked by dependency-cruiser (`npm run lint:deps`, .dependency-cruiser.cjs: no cycles, PixiJS, three.js and
 * mediabunny only where they belong, storage only from the server; .tsx files too, through scripts/swc-tsx.cjs). The
 * library rules below read the source text as well: they also see WebCodecs globals, which no import names.
 */

function sources(dir: string): Array<{ file: string; text: string }> {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    if (!/\.(ts|tsx|mjs)$/.test(name) || /\.test\.tsx?$/.test(name)) return [];
    return [{ file: relative(process.cwd(), path), text: readFileSync(path, 'utf8') }];
  });
}

const offenders = (files: Array<{ file: string; text: string }>, pattern: RegExp) => files.filter((f) => pattern.test(f.text)).map((f) => f.file);

describe('architecture', () => {
  const server = sources('src/server');
  const outsideStorage = server.filter((f) => !f.file.startsWith('src/server/storage/'));

  it('routes, CLI, export and import hold no SQL: storage functions do', () => {
    expect(offenders(outsideStorage, /\.(selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql`/)).toEqual([]);
  });

  // bench:launch reads the database as the testkit does: it looks up every acknowledged answer, seeds its synthetic
  // study and explains the hot statements; bench:adaptive-server reads the answers it scales; no product code does.
  it('storage.db is reached only from storage code (and the testkit, bench:launch and bench:adaptive-server, which read what was stored)', () => {
    const all = [...sources('src'), ...sources('bench'), ...sources('scripts')];
    const allowed = (file: string) => file.startsWith('src/server/storage/') || file.startsWith('bench/launch/') || file === 'bench/adaptive/server.ts';
    expect(offenders(all.filter((f) => !allowed(f.file)), /\.db\b(?!\w)/)).toEqual([]);
  });

  it('the server keeps no per-protocol branch: the protocol table says it all', () => {
    const names = PROTOCOL_NAMES.join('|');
    expect(offenders(server, new RegExp(`[!=]==\\s*'(${names})'|'(${names})'\\s*[!=]==|case '(${names})'`))).toEqual([]);
  });

  // dependency-cruiser's swc parser cannot tell `import type` from an import, so it cannot say this one.
  it('the client and the shared code reach src/server for types only (`import type`, erased at build)', () => {
    const client = ['src/web', 'src/protocols', 'src/contract', 'src/analysis', 'src/quality'].flatMap(sources);
    const runtimeImport = /(?:^|\n)\s*(?:import|export)(?!\s+type\b)[^;'"]*?'(?:\.\.\/)+server\/|\bimport\(\s*'(?:\.\.\/)+server\//;
    expect(offenders(client, runtimeImport)).toEqual([]);
  });

  // The study and payload schemas are TypeBox values: one runtime import from the participant page brought TypeBox
  // into its first bundle (+14 KB gzip, found 2026-11-28). The page takes their types, and plain values from
  // modules without TypeBox (contract/job-options.ts).
  it('the participant page and the protocols reach the TypeBox schemas for types only', () => {
    const schemaModules = sources('src/contract')
      .filter((f) => /from '@sinclair\/typebox'/.test(f.text))
      .map((f) => f.file.replace(/^src\/contract\/|\.ts$/g, ''));
    expect(schemaModules).toContain('job');
    const page = [...sources('src/web'), ...sources('src/protocols')];
    const runtimeImport = new RegExp(`(?:^|\\n)\\s*(?:import|export)(?!\\s+type\\b)[^;'"]*?'(?:\\.\\.\\/)+contract\\/(?:${schemaModules.join('|')})(?:\\.js)?'`);
    expect(offenders(page, runtimeImport)).toEqual([]);
  });

  it('only src/web/stage imports PixiJS', () => {
    const web = [...sources('src/web'), ...sources('src/protocols')];
    expect(offenders(web.filter((f) => !f.file.startsWith('src/web/stage/')), /from '(pixi\.js|@pixi\/react)'/)).toEqual([]);
  });

  // The stage is the only code that draws or decodes (README "Project layout"): three.js shares its WebGL context,
  // WebCodecs decodes its clips. mediabunny reads containers in the stage and, on the server, in the importer.
  it('only src/web/stage imports three.js or uses WebCodecs', () => {
    const web = [...sources('src/web'), ...sources('src/protocols')].filter((f) => !f.file.startsWith('src/web/stage/'));
    expect(offenders(web, /from 'three(\/[^']*)?'/)).toEqual([]);
    expect(offenders(web, /\b(VideoDecoder|VideoFrame|EncodedVideoChunk|VideoEncoder|AudioDecoder|ImageDecoder)\b/)).toEqual([]);
    expect(offenders(sources('src/server'), /from 'three(\/[^']*)?'|\bVideoDecoder\b/)).toEqual([]);
  });

  it('mediabunny is read by the stage and the importer only', () => {
    const all = [...sources('src'), ...sources('scripts')];
    const allowed = (file: string) => file.startsWith('src/web/stage/') || file.startsWith('src/server/study/');
    expect(offenders(all.filter((f) => !allowed(f.file)), /from 'mediabunny'/)).toEqual([]);
  });

  it('protocol definitions stay light: no React, PixiJS, Node or schema library in their index.ts', () => {
    const definitions = sources('src/protocols').filter((f) => /src\/protocols\/[^/]+\/index\.ts$/.test(f.file) || f.file.endsWith('registry.ts'));
    expect(definitions.length).toBe(PROTOCOL_NAMES.length + 1);
    expect(offenders(definitions, /from '(react|pixi\.js|@pixi\/react|node:[a-z]+|@sinclair\/typebox)'/)).toEqual([]);
  });
});
