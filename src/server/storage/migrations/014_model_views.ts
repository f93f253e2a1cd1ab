import type { Kysely } from 'kysely';
import type { SchemaMigration } from './migration.js';

// 3D objects (docs/3d-objects.md): the camera poses posted with a rating, and the bytes a .gltf loads with its
// side files (buffers and textures, stored as media rows of their own), so the loading total is exact.
export const m014_model_views: SchemaMigration = {
  name: '014_model_views',
  async up(db: Kysely<any>) {
    await db.schema.alterTable('ratings').addColumn('views', 'text').execute();
    await db.schema.alterTable('job_media').addColumn('load_bytes', 'bigint').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('ratings').dropColumn('views').execute();
    await db.schema.alterTable('job_media').dropColumn('load_bytes').execute();
  },
};
