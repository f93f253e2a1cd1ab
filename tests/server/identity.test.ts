import { expect, it } from 'vitest';
import { describeEachDialect } from '../../testkit/databases.js';
import { pdfText } from '../../testkit/pdf-text.js';
import { countRows, json, postJson, useServer } from '../../testkit/server.js';

describeEachDialect('POST /api/bchecks/', (dialect) => {
  const ctx = useServer(dialect);
  const body = { b_name: 'Chrome', b_version: '140.0.1', b_os: 'Linux', screen_size: '1920x1080' };

  it('stores the browser check and answers its id', async () => {
    const res = await postJson(ctx().app, '/api/bchecks/', body);
    expect(res.statusCode).toBe(201);
    const { id } = json(res);
    expect(id).toEqual(expect.any(Number));
    const row = await ctx().storage.db.selectFrom('bchecks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject(body);
  });

  it.each([
    ['a missing field', { b_name: 'Chrome', b_version: '1', b_os: 'Linux' }, 'body.screen_size'],
    ['a wrong type', { ...body, b_version: 140 }, 'body.b_version'],
    ['an unknown field', { ...body, ua: 'x' }, 'body.ua'],
  ])('refuses %s with 400, storing nothing', async (_what, payload, path) => {
    const res = await postJson(ctx().app, '/api/bchecks/', payload);
    expect(res.statusCode).toBe(400);
    expect(json(res).details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await countRows(ctx().storage, 'bchecks')).toBe(0);
  });

  it('refuses an oversized body with 413', async () => {
    const res = await postJson(ctx().app, '/api/bchecks/', { ...body, b_name: 'x'.repeat(20_000) });
    expect(res.statusCode).toBe(413);
    expect(await countRows(ctx().storage, 'bchecks')).toBe(0);
  });
});

describeEachDialect('POST /api/consent/', (dialect) => {
  const ctx = useServer(dialect);
  const form = {
    emailAddress: 'participant@univ-nantes.fr',
    paraphe: 'CD',
    gender: 'Mme.',
    name: 'Chloé',
    familyName: 'Dupré',
    birthCountry: 'Sénégal',
    birthDay: '1994-07-21',
    currentDate: { day: 5, month: 3, year: 2026 },
  };

  it('refuses an oversized body with 413', async () => {
    const res = await postJson(ctx().app, '/api/consent/', { ...form, birthCountry: 'x'.repeat(70 * 1024) });
    expect(res.statusCode).toBe(413);
    expect(json(res).error).toBe('PAYLOAD_TOO_LARGE');
    expect(await countRows(ctx().storage, 'consents')).toBe(0);
  });

  it('names the allowed values of a union field', async () => {
    const res = await postJson(ctx().app, '/api/consent/', { ...form, gender: 'Dr.' });
    expect(json(res).details).toEqual([{ path: 'body.gender', message: 'must be one of "M.", "Mme."' }]);
  });

  it('stores the form in its own table and answers the filled-in French PDF', async () => {
    const res = await postJson(ctx().app, '/api/consent/', form);
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfText(res.rawPayload);
    expect(text).toContain('Formulaire de consentement éclairé');
    expect(text).toContain('Je soussigné(e) Mme. Chloé Dupré, né(e) le 21/07/1994 (pays de naissance : Sénégal)');
    expect(text).toContain('participant@univ-nantes.fr');
    expect(text).toContain('05/03/2026');
    expect(text).toContain('CD');
    const rows = await ctx().storage.db.selectFrom('consents').selectAll().execute();
    expect(rows).toEqual([
      {
        id: expect.any(Number),
        email: form.emailAddress,
        paraphe: 'CD',
        gender: 'Mme.',
        name: 'Chloé',
        family_name: 'Dupré',
        birth_country: 'Sénégal',
        birth_day: '1994-07-21',
        signed_on: '2026-03-05',
        created_at: expect.any(String),
      },
    ]);
  });

  it.each([
    ['Cyrillic', { gender: 'M.', name: 'Иван', familyName: 'Петров', birthCountry: 'Россия', paraphe: 'ИП' }],
    ['Simplified Chinese', { gender: 'M.', name: '小明', familyName: '王', birthCountry: '中国', paraphe: '王小明' }],
    ['Latin Extended', { gender: 'M.', name: 'Łukasz', familyName: 'Żółkiewski-Nguyễn', birthCountry: 'Polska', paraphe: 'ŁŻ' }],
    ['Vietnamese (Latin Extended Additional)', { gender: 'Mme.', name: 'Thị Ngọc Ánh', familyName: 'Nguyễn', birthCountry: 'Việt Nam', paraphe: 'NTỊ' }],
    ['Japanese', { gender: 'Mme.', name: 'はなこ', familyName: '山田', birthCountry: '日本', paraphe: 'ヤマダ' }],
    ['Korean', { gender: 'Mme.', name: '서연', familyName: '김', birthCountry: '대한민국', paraphe: '김서연' }],
    ['Traditional Chinese', { gender: 'M.', name: '大文', familyName: '陳', birthCountry: '臺灣', paraphe: '陳' }],
    ['mixed scripts', { gender: 'M.', name: 'Иван 王小明 Łukasz', familyName: '山田 はなこ 김서연', birthCountry: 'Ελλάδα', paraphe: 'И王ŁはL김' }],
  ])('draws a %s name as entered: the PDF text reads it back exactly, with no missing glyph', async (_script, fields) => {
    const res = await postJson(ctx().app, '/api/consent/', { ...form, ...fields });
    expect(res.statusCode).toBe(201);
    const text = pdfText(res.rawPayload);
    // The declaration wraps where the line is full: read it as one paragraph.
    const declaration = text.replace(/ ?\n/g, ' ');
    expect(declaration).toContain(`Je soussigné(e) ${fields.gender} ${fields.name} ${fields.familyName}, né(e) le 21/07/1994 (pays de naissance : ${fields.birthCountry})`);
    expect(text).toContain(`Paraphe : ${fields.paraphe}`);
    // No garbling: no code without a character, no .notdef glyph (code 0), no Latin-1 mojibake.
    expect(text).not.toMatch(/[\uFFFD\u0000]|Ã|Ð|Ñ|\?\?/);
    // Each script's characters come from an embedded font, never from a standard font's WinAnsi encoding.
    expect(res.rawPayload.toString('latin1')).not.toMatch(/\/BaseFont \/Helvetica/);
  });

  it.each([
    ['a missing field', (f: any) => { const { paraphe: _p, ...rest } = f; return rest; }, 'body.paraphe'],
    ['an unknown gender', (f: any) => ({ ...f, gender: 'Dr.' }), 'body.gender'],
    ['a malformed email', (f: any) => ({ ...f, emailAddress: 'nope' }), 'body.emailAddress'],
    ['a wrong date type', (f: any) => ({ ...f, currentDate: { day: '5', month: 3, year: 2026 } }), 'body.currentDate.day'],
    ['an impossible birth date', (f: any) => ({ ...f, birthDay: '1994-02-30' }), 'body.birthDay'],
    ['an impossible signing date', (f: any) => ({ ...f, currentDate: { day: 31, month: 4, year: 2026 } }), 'body.currentDate'],
    ['an unknown field', (f: any) => ({ ...f, phone: '0600000000' }), 'body.phone'],
  ])('refuses %s with 400, storing nothing', async (_what, mutate, path) => {
    const res = await postJson(ctx().app, '/api/consent/', mutate(form));
    expect(res.statusCode).toBe(400);
    expect(json(res).error).toBe('VALIDATION');
    expect(json(res).details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await countRows(ctx().storage, 'consents')).toBe(0);
  });
});
