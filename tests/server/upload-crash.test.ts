import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { addUser, PASSWORD } from '../../testkit/console.js';
import { createTestDatabase, describeEachDialect } from '../../testkit/databases.js';
import { isAlive, startNode, waitFor } from '../../testkit/node-process.js';
import { openStorage } from '../../src/server/storage/open.js';
import { recoverStaging, stagingRoot } from '../../src/server/study/staging.js';
import { importStudy } from '../../src/server/study/import.js';
import { jobFields, PAIR_STUDY, writeStudy } from '../../testkit/studies.js';

/**
 * kill -9 during a console upload (issue 21, item 2): the next start removes what the killed process left in the
 * media store's staging folder, and no job appears. And an import killed after its database commit but before its
 * media were swapped in is finished at the next start, so a job never lacks its media.
 */

/** A pid that no process has now. */
function deadPid(): number {
  return Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
}

describeEachDialect('kill -9 and the staging folder', (dialect) => {
  it('leaves nothing after a restart when the server is killed during an upload', async () => {
    const database = await createTestDatabase(dialect);
    const mediaDir = join(database.dir, 'media');
    const env = { DATABASE_URL: database.url, MEDIA_DIR: mediaDir };
    const storage = await openStorage({ databaseUrl: database.url });
    try {
      await addUser(storage, 'admin@lab.example');
      const first = await startNode(env);
      const signedIn = await fetch(`${first.url}/console/api/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@lab.example', password: PASSWORD }) });
      const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
      const { csrfToken } = (await signedIn.json()) as { csrfToken: string };
      // Half of a 4 MB upload is sent, then the server is killed while the rest is awaited.
      const boundary = 'glimpse-crash';
      const file = randomBytes(4 * 1024 * 1024);
      const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="study"; filename="study.zip"\r\nContent-Type: application/zip\r\n\r\n`);
      const length = head.length + file.length + `\r\n--${boundary}--\r\n`.length;
      const url = new URL(`${first.url}/console/api/import`);
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { cookie, 'x-csrf-token': csrfToken, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': length } });
      req.on('error', () => undefined);
      req.write(head);
      req.write(file.subarray(0, file.length / 2));
      const uploads = async () => (await readdir(stagingRoot(mediaDir)).catch(() => [] as string[])).filter((n) => n.startsWith('upload.'));
      await waitFor(async () => {
        const [folder] = await uploads();
        return folder !== undefined && ((await stat(join(stagingRoot(mediaDir), folder, 'study.zip')).catch(() => null))?.size ?? 0) > 0;
      });
      process.kill(first.pid, 'SIGKILL');
      await waitFor(async () => !isAlive(first.pid));
      req.destroy();
      expect(await uploads()).toHaveLength(1);

      const second = await startNode(env);
      expect(await readdir(stagingRoot(mediaDir))).toEqual([]);
      expect(await storage.db.selectFrom('jobs').select('id').execute()).toEqual([]);
      await second.stop();
    } finally {
      await storage.close();
      await database.drop();
    }
  }, 90_000);

  it('finishes an import killed after its commit, and removes one killed before it', async () => {
    const database = await createTestDatabase(dialect);
    const mediaDir = join(database.dir, 'media');
    const storage = await openStorage({ databaseUrl: database.url });
    try {
      // What a process killed between the commit and the swap leaves: the staged media of a committed job, its marker.
      const report = await importStudy(storage, PAIR_STUDY, mediaDir);
      const dead = deadPid();
      const root = stagingRoot(mediaDir);
      await mkdir(root, { recursive: true });
      const { rename } = await import('node:fs/promises');
      await rename(join(mediaDir, report.jobId), join(root, `import.${dead}.aaaa`));
      await writeFile(join(root, `import.${dead}.aaaa.job`), report.jobId);
      // And one killed before its commit: staged media of a job the database does not have.
      const other = await writeStudy({ id: 'never', job: jobFields('pair_comparison'), playlists: [{ stimuli: [{ sourceA: 'red.png', sourceB: 'blue.png' }] }] });
      await mkdir(join(root, `import.${dead}.bbbb`));
      await writeFile(join(root, `import.${dead}.bbbb`, 'red.png'), other);
      await writeFile(join(root, `import.${dead}.bbbb.job`), 'never');
      // And a live process's folder (this one's), left alone.
      await mkdir(join(root, `upload.${process.pid}.cccc`));

      const recovered = await recoverStaging(storage, mediaDir);
      expect(recovered).toEqual({ completed: [report.jobId], removed: 1 });
      expect(existsSync(join(mediaDir, report.jobId, 'red.png'))).toBe(true);
      expect(existsSync(join(mediaDir, 'never'))).toBe(false);
      expect(await readdir(root)).toEqual([`upload.${process.pid}.cccc`]);
    } finally {
      await storage.close();
      await database.drop();
    }
  }, 60_000);
});
