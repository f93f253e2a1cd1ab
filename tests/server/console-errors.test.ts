import { expect, it } from 'vitest';
import { addUser, signIn } from '../../testkit/console.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { json, useServer } from '../../testkit/server.js';
import { jobFields, writeStudy } from '../../testkit/studies.js';

/** Console requests that used to answer 500 (issue 25, item 8) get a clear 4xx, on both databases. */

describeEachDialect('console error answers', (dialect) => {
  const ctx = useServer(dialect);

  it('answers 404 to an administrator asking for the decisions or the screening of a job that does not exist', async () => {
    await addUser(ctx().storage, 'admin@lab.example');
    const admin = await signIn(ctx().app, 'admin@lab.example');
    for (const res of [
      await admin.get('/console/api/jobs/nope/decisions/prolific'),
      await admin.get('/console/api/jobs/nope/decisions/prolific/approve.csv'),
      await admin.post('/console/api/jobs/nope/screen'),
      await admin.get('/console/api/jobs/nope/export?format=p910'),
    ]) {
      expect([res.statusCode, json(res)]).toEqual([404, { error: 'NOT_FOUND', message: 'no job nope' }]);
    }
  });

  it('answers 409 to an export format the job\'s protocol has no votes for, before any byte of it', async () => {
    await ctx().importStudy(await writeStudy({ id: 'tri', job: jobFields('triplet'), playlists: [{ stimuli: [{ sourceA: 'red.png', sourceB: 'green.png', sourceC: 'blue.png' }] }] }));
    await addUser(ctx().storage, 'admin@lab.example');
    const admin = await signIn(ctx().app, 'admin@lab.example');
    const res = await admin.get('/console/api/jobs/tri/export?format=p910');
    expect([res.statusCode, json(res)]).toEqual([409, { error: 'FORMAT_NOT_FOR_JOB', message: 'format p910 is for rating jobs; job tri is a triplet job (triplet)' }]);
    expect((await admin.get('/console/api/jobs/tri/export?format=mlds')).statusCode).toBe(200);
  });

  it('answers 400 BAD_TEXT to a NUL in the participant search', async () => {
    await ctx().importStudy(await writeStudy({ id: 'tri', job: jobFields('triplet'), playlists: [{ stimuli: [{ sourceA: 'red.png', sourceB: 'green.png', sourceC: 'blue.png' }] }] }));
    await addUser(ctx().storage, 'admin@lab.example');
    const admin = await signIn(ctx().app, 'admin@lab.example');
    for (const q of ['%00', 'W%0042']) {
      const res = await admin.get(`/console/api/jobs/tri/participants?q=${q}`);
      expect([q, res.statusCode, json(res).error]).toEqual([q, 400, 'BAD_TEXT']);
    }
    expect(json(await admin.get('/console/api/jobs/tri/participants?q=W42')).total).toBe(0);
  });
});
