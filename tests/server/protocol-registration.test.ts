import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { MEDIA_FILE_SCHEMA } from '../../src/protocols/common/genericStimulus.js';
import { GENERIC_PAGE_ELIGIBILITY } from '../../src/protocols/common/eligibility.js';
import { PROTOCOLS } from '../../src/protocols/registry.js';
import type { ProtocolDefinition } from '../../src/protocols/types.js';
import { exportJob } from '../../src/server/export/export.js';
import { StudyValidationError } from '../../src/server/study/validate.js';
import { importStudy } from '../../src/server/study/import.js';
import { parseCsv } from '../../testkit/csv.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { getPlaylist, json, postJson, useServer } from '../../testkit/server.js';
import { jobFields, writeStudy } from '../../testkit/studies.js';

/**
 * docs/protocols.md "Adding a protocol", proved: a throwaway protocol with a stimulus shape of its own is one
 * definition added to the table, and the whole server serves it (study import, job, playlist on its own path, answers,
 * code, export) without any other change.
 */
interface ThrowawaySpec {
  picture: string;
  expected: number;
}

const throwaway: ProtocolDefinition<ThrowawaySpec> = {
  name: 'throwaway_rating',
  route: 'throwaway',
  playlistPath: 'getthrowaway',
  eligibility: GENERIC_PAGE_ELIGIBILITY,
  stimulus: {
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['picture', 'expected'],
      properties: { picture: MEDIA_FILE_SCHEMA, expected: { type: 'integer', minimum: 1, maximum: 3 } },
    },
    media: (spec) => [['picture', spec.picture]],
    view: (id, spec, mediaName) => ({ stimuliId: id, source: mediaName(spec.picture), reversed: false }),
    columns: (spec) => ({
      stimulus_type: 'throwaway',
      source: spec.picture,
      source_a: null,
      source_b: null,
      source_c: null,
      source_d: null,
      reversed: null,
      reference_value: spec.expected,
    }),
  },
  answers: { ratingValues: [1, 2, 3], screenings: false },
  analysis: { family: 'rating', vote: ({ spec, value }) => ({ stimulus: spec.picture, score: value }) },
  web: () => import('../../src/protocols/acr/web.js'),
};
const REGISTRY = { ...PROTOCOLS, throwaway_rating: throwaway };

const study = {
  id: 'throwaway-job',
  job: jobFields('absolute_category_rating', { subjectiveProtocol: 'throwaway_rating' }),
  playlists: [{ stimuli: [{ picture: 'red.png', expected: 2 }, { picture: 'blue.png', expected: 3 }] }],
};

describeEachDialect('a protocol registered in the table', (dialect) => {
  const ctx = useServer(dialect, { protocols: REGISTRY });

  it('is served end to end through the API: import, job, playlist, answers, code, export', async () => {
    const file = await writeStudy(study);
    expect(await ctx().importStudy(file)).toMatchObject({ jobId: 'throwaway-job', protocol: 'throwaway_rating', route: 'throwaway', status: 'created', mediaCopied: 2 });
    expect(json(await ctx().app.inject('/api/jobs/throwaway-job'))).toMatchObject({ subjectiveProtocol: 'throwaway_rating' });

    // Its own playlist path only; the stimuli in its own shape.
    expect((await getPlaylist(ctx().app, '/api/getacr/throwaway-job')).statusCode).toBe(404);
    const playlist = json(await getPlaylist(ctx().app, '/api/getthrowaway/throwaway-job', 'platform=prolific&PROLIFIC_PID=T1'));
    expect(playlist).toMatchObject({ type: 'throwaway_rating', mediaRessources: ['throwaway-job/red.png', 'throwaway-job/blue.png'] });
    expect(playlist.stimulis.map((s: { source: string }) => s.source)).toEqual(['throwaway-job/red.png', 'throwaway-job/blue.png']);

    for (const [i, s] of playlist.stimulis.entries()) {
      const res = await postJson(ctx().app, '/api/ratings/', { stimuli_id: s.stimuliId, session_id: playlist.session_id, session_token: playlist.sessionToken, value: i + 1, nbReplay: 0, logs: null });
      expect(res.statusCode).toBe(201);
    }
    const code = json(await ctx().app.inject(`/api/sessions/token/${playlist.sessionToken}`));
    expect(code.verification_code).toMatch(/^[A-Z0-9]{12}$/);

    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    await exportJob(ctx().storage, 'throwaway-job', { table: 'ratings', format: 'csv', out, protocols: REGISTRY });
    const rows = parseCsv(Buffer.concat(chunks).toString());
    expect(rows.map((r) => [r.protocol, r.stimulus_type, r.source, r.reference_value, r.value])).toEqual([
      ['throwaway_rating', 'throwaway', 'red.png', '2', '1'],
      ['throwaway_rating', 'throwaway', 'blue.png', '3', '2'],
    ]);
  });

  it("checks study files against the protocol's own schema, and the default table does not know it", async () => {
    const bad = await writeStudy({ ...study, id: 'throwaway-bad', playlists: [{ stimuli: [{ picture: 'red.png', expected: 7 }] }] });
    const error = await ctx().importStudy(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudyValidationError);
    expect((error as StudyValidationError).problems).toEqual([{ path: '$.playlists[0].stimuli[0].expected', message: 'must be <= 3' }]);

    const unknown = await importStudy(ctx().storage, await writeStudy(study), ctx().mediaDir).catch((e: unknown) => e);
    expect((unknown as StudyValidationError).problems[0]).toMatchObject({ path: '$.job.subjectiveProtocol', message: expect.stringContaining('unknown protocol throwaway_rating') });
  });
});
