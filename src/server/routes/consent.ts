import type { FastifyInstance } from 'fastify';
import { ConsentBody } from '../../contract/payloads.js';
import { consentPdf } from '../consent-pdf.js';
import { HttpError } from '../errors.js';
import { rateLimited, type RateLimits } from '../plugins/security.js';
import { storeConsent } from '../storage/participant-records.js';

const isoDay = (y: number, m: number, d: number) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
/** "2026-02-30" matches the schema's pattern but is no day: it must survive a round trip through Date. */
const isRealDay = (day: string) => {
  const date = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === day;
};

/**
 * POST /api/consent/: stores the signed French consent form (identity data, in its own table, never joined to
 * ratings) and answers a PDF copy of it.
 */
export async function consentRoutes(app: FastifyInstance, opts: { rateLimits: RateLimits | false }): Promise<void> {
  const limit = rateLimited(opts.rateLimits, 'consentsPerMinute');
  app.post<{ Body: ConsentBody }>('/api/consent/', { schema: { body: ConsentBody }, bodyLimit: 64 * 1024, ...limit }, async (request, reply) => {
    const form = request.body;
    const { day, month, year } = form.currentDate;
    const signedOn = isoDay(year, month, day);
    const invalid = [
      ...(isRealDay(form.birthDay) ? [] : [{ path: 'body.birthDay', message: 'is not a calendar date' }]),
      ...(isRealDay(signedOn) ? [] : [{ path: 'body.currentDate', message: 'is not a calendar date' }]),
    ];
    if (invalid.length > 0) {
      throw new HttpError(400, 'VALIDATION', invalid.map((d) => `${d.path} ${d.message}`).join('; '), { details: invalid });
    }
    await storeConsent(app.storage, form, signedOn);
    const pdf = await consentPdf(form);
    return reply
      .code(201)
      .type('application/pdf')
      .header('content-disposition', 'inline; filename="consentement.pdf"')
      .header('cache-control', 'no-store')
      .send(pdf);
  });
}
