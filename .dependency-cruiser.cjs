// Import rules (issue 37), checked by dependency-cruiser: `npm run lint:deps`, part of `npm test`.
// tests/unit/architecture.test.ts keeps the checks an import graph cannot make (SQL only in storage code, no
// per-protocol branch in the server, WebCodecs only in the stage, light protocol definitions, runtime imports apart
// from type-only ones).
//
// Parser. dependency-cruiser reads TypeScript with the `typescript` package up to 6.x only; this project compiles
// with TypeScript 7 (the native compiler, no JavaScript API), so it parses with swc (`@swc/core`, development only).
// - swc reports `import type` as an ordinary import: every rule below counts type-only imports too.
// - dependency-cruiser 17 (the last major that runs on Node 20) asks swc for TypeScript without JSX: .tsx files are
//   parsed with JSX through scripts/swc-tsx.cjs, preloaded by `npm run lint:deps` (their imports were not seen
//   before: 1,696 dependencies then, 2,109 with them). dependency-cruiser >= 18.3 does it itself but needs Node >=
//   22: when the project moves to Node 22, upgrade it and drop the preload.

/** Product code that is not the stage may not import these; the stage (src/web/stage) draws and decodes. */
const notStage = '^src/(?!web/stage/)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No circular imports, type-only ones included: a cycle makes the load order decide what a module sees ' +
        '(undefined at first use), hides which module owns a definition and ties modules that should move alone. ' +
        'Move the shared definition to the module it belongs to, which both then import.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'pixi-only-in-stage',
      severity: 'error',
      comment:
        'PixiJS (pixi.js, @pixi/react) is imported only by the stage (src/web/stage): it owns the WebGL context, ' +
        'and the rest of the client (console, protocols, participant pages) stays out of the lazy stage chunk.',
      from: { path: notStage },
      to: { path: '^node_modules/(pixi\\.js|@pixi/react)/' },
    },
    {
      name: 'three-only-in-stage',
      severity: 'error',
      comment:
        'three.js (three and three/...) is imported only by the stage (src/web/stage): it renders 3D objects on the ' +
        "stage's own WebGL context, in a lazy chunk only a 3D study loads. The server reads glTF with gltf-transform.",
      from: { path: notStage },
      to: { path: '^node_modules/three/' },
    },
    {
      name: 'mediabunny-only-in-stage-and-importer',
      severity: 'error',
      comment:
        'mediabunny reads video containers in the stage (src/web/stage: the packets and timestamps for the WebCodecs ' +
        "player) and, as the one named exception, in the importer (src/server/study: the codec probe's " +
        'video-worker.mjs). No other product code decodes media. testkit/, tests/ and bench/ are not product code ' +
        'and may use it (testkit/brokenClips.ts writes broken clips with it).',
      from: { path: '^src/', pathNot: '^src/(web/stage|server/study)/' },
      to: { path: '^node_modules/mediabunny/' },
    },
    {
      name: 'storage-only-from-server',
      severity: 'error',
      comment:
        'Storage (src/server/storage: the database and the SQL) is reached only from the server; the client and the ' +
        'shared code (src/web, src/protocols, src/contract, src/analysis, src/quality) talk to it over HTTP. ' +
        'testkit/, tests/ and bench/ (bench:launch, bench:analysis... seed and read the database) are not product ' +
        'code and may import it. Named exception: src/web/console/strings.ts imports the StudySaveStatus type ' +
        '(`import type`, erased at build); swc cannot tell a type-only import, so that one file is exempt here and ' +
        'tests/unit/architecture.test.ts checks that src/web reaches src/server with `import type` only.',
      from: { path: '^src/', pathNot: ['^src/server/', '^src/web/console/strings\\.ts$'] },
      to: { path: '^src/server/storage/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
    // Imports name the emitted file ('./x.js'); dependency-cruiser resolves them to ./x.ts or ./x.tsx.
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
      conditionNames: ['import', 'require', 'node', 'default'],
      exportsFields: ['exports'],
      mainFields: ['module', 'main'],
    },
  },
};
