// Preloaded by `npm run lint:deps` (node --require): dependency-cruiser 17 asks swc for TypeScript without JSX, so
// it could not parse a .tsx file. This turns swc's JSX syntax on for .tsx files only; every other file is parsed
// exactly as dependency-cruiser asks. dependency-cruiser >= 18.3 does this itself but needs Node >= 22: when the
// project moves to Node 22, upgrade it and drop this file (.dependency-cruiser.cjs says the same).
const swc = require('@swc/core');

const parseFileSync = swc.parseFileSync;
swc.parseFileSync = (file, options) => parseFileSync(file, /\.tsx$/.test(file) ? { ...options, tsx: true } : options);
