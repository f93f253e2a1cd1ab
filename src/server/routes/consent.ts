import type { FastifyInstance } from 'fastify';
import { ConsentBody } from '../../contract/payloads.js';
import { consentPdf } from '../consent-pdf.js';
import { nowIso } from '../storage/types.js';

/**
 * POST /api/consent/: stores the signed French consent form (identity data, in its own table, never joined to
 * ratings) and answers a PDF copy of it.
 */
export async function consentRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: ConsentBody }>('/api/consent/', { schema: { body: ConsentBody }, bodyLimit: 64 * 1024 }, async (request, reply) => {
    const form = request.body;
    const { day, month, year } = form.currentDate;
    await app.storage.write((trx) =>
      trx
        .insertInto('consents')
        .values({
          email: form.emailAddress,
          paraphe: form.paraphe,
          gender: form.gender,
          name: form.name,
          family_name: form.familyName,
          birth_country: form.birthCountry,
          birth_day: form.birthDay,
          signed_on: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
          created_at: nowIso(),
        })
        .execute(),
    );
    const pdf = await consentPdf(form);
    return reply
      .code(201)
      .type('application/pdf')
      .header('content-disposition', 'inline; filename="consentement.pdf"')
      .header('cache-control', 'no-store')
      .send(pdf);
  });
}
