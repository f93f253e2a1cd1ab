/**
 * npm run media [-- --videos] [-- DIR...]
 * Generates the missing demo images (and missing videos) of the studies in studies/ and tests/e2e/studies/.
 * --videos re-encodes every referenced demo video with ffmpeg (they are committed: commit the new files).
 */
import { resolve } from 'node:path';
import { ensureDemoMedia } from './demo/index.js';

const args = process.argv.slice(2);
const regenerateVideos = args.includes('--videos');
const dirs = args.filter((arg) => !arg.startsWith('--'));
const studyDirs = dirs.length > 0 ? dirs : ['studies', 'tests/e2e/studies'];

const started = Date.now();
let created = 0;
for (const dir of studyDirs) {
  await ensureDemoMedia(resolve(dir), {
    regenerateVideos,
    log: (line) => {
      created += 1;
      console.log(line);
    },
  });
}
console.log(`demo media: ${created} file(s) created in ${((Date.now() - started) / 1000).toFixed(1)} s (${studyDirs.join(', ')})`);
