import type { BcheckBody, ConsentBody } from '../../contract/payloads.js';
import { nowIso, type Storage } from './types.js';

/** The small records a participant's page posts outside answers: browser checks, lab consent forms (session logs: session-logs.ts). */

export async function storeBcheck(storage: Storage, body: BcheckBody): Promise<number> {
  const { id } = await storage.write((trx) => trx.insertInto('bchecks').values({ ...body, created_at: nowIso() }).returning('id').executeTakeFirstOrThrow());
  return id;
}

export async function bcheckExists(storage: Storage, id: number): Promise<boolean> {
  return (await storage.db.selectFrom('bchecks').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** A signed lab consent form (identity data, in its own table, never joined to answers). `signedOn` is YYYY-MM-DD. */
export async function storeConsent(storage: Storage, form: ConsentBody, signedOn: string): Promise<void> {
  await storage.write((trx) =>
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
        signed_on: signedOn,
        created_at: nowIso(),
      })
      .execute(),
  );
}
