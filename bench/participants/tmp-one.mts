import { attackRows } from './attacks.js';
const rows = await attackRows(async (name, run) => (name.startsWith(process.env.ONLY!) ? run() : (null as never)));
const r = (rows.consoleUpload ?? rows.cliImport) as any;
for (const k of ['created', 'unchanged']) console.log(k, JSON.stringify(r[k].idle.ratings), JSON.stringify(r[k].during.ratings), JSON.stringify(r[k].p99Ratio));
process.exit(0);
