import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseMediaName, type CloudRecipe, type ImageRecipe, type MeshRecipe, type VideoRecipe } from './media-name.js';
import { impairCloud, impairMesh, pointCloud, texturedMesh, writeCloud, writeMesh } from './render-model.js';
import { rasterize, writeImage, type RawImage } from './render-image.js';
import { ffmpegAvailable, FFMPEG, writeVideo } from './render-video.js';
import { listStudyMedia } from './study-media.js';

export { parseMediaName } from './media-name.js';
export { listStudyMedia } from './study-media.js';

export interface EnsureDemoMediaOptions {
  /** Re-encode every referenced demo video even if it exists (npm run media -- --videos). Default false. */
  regenerateVideos?: boolean;
  /** Progress lines (one per created file). Default: silent. */
  log?: (line: string) => void;
  /** Only these study files of `studiesDir` (absolute paths); default every one (what npm start makes). */
  studies?: readonly string[];
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.size > 0,
    () => false,
  );
}

/**
 * Creates every missing demo media file that the studies in `studiesDir` reference and whose name is a demo
 * recipe (see media-name.ts). Images are drawn with sharp; videos are committed, and only re-encoded with ffmpeg
 * when missing or when `regenerateVideos` is set. Idempotent: when everything exists it only stats the files.
 * Names that are not recipes (a researcher's own photos) are left alone; the study importer reports them if missing.
 */
export async function ensureDemoMedia(studiesDir: string, options: EnsureDemoMediaOptions = {}): Promise<void> {
  const log = options.log ?? (() => {});
  const images: Array<{ path: string; recipe: ImageRecipe }> = [];
  const videos: Array<{ path: string; recipe: VideoRecipe }> = [];
  const models: Array<{ path: string; recipe: MeshRecipe | CloudRecipe }> = [];
  const seen = new Set<string>();
  for (const { studyFile, files } of await listStudyMedia(studiesDir)) {
    if (options.studies && !options.studies.includes(studyFile)) continue;
    for (const path of files) {
      if (seen.has(path)) continue;
      seen.add(path);
      const recipe = parseMediaName(path);
      if (!recipe) continue;
      if (recipe.kind === 'video') {
        if (options.regenerateVideos || !(await exists(path))) videos.push({ path, recipe });
      } else if (recipe.kind === 'mesh' || recipe.kind === 'cloud') {
        if (!(await exists(path))) models.push({ path, recipe });
      } else if (!(await exists(path))) {
        images.push({ path, recipe });
      }
    }
  }

  // All variants of one subject at one size share a single SVG rasterization (the slow part).
  const bases = new Map<string, RawImage>();
  for (const { path, recipe } of images) {
    const key = `${JSON.stringify(recipe.subject)}@${recipe.width}x${recipe.height}`;
    let base = bases.get(key);
    if (!base) {
      base = await rasterize(recipe.subject, recipe.width, recipe.height);
      bases.set(key, base);
    }
    await mkdir(dirname(path), { recursive: true });
    await writeImage(recipe, base, path);
    log(`image ${path}`);
  }

  for (const { path, recipe } of models) {
    if (recipe.kind === 'mesh') {
      const doc = await texturedMesh(recipe.content);
      await impairMesh(doc, recipe.steps);
      await writeMesh(doc, path);
    } else {
      await writeCloud(impairCloud(pointCloud(recipe.content, recipe.points), recipe.steps), path);
    }
    log(`${recipe.kind} ${path}`);
  }

  if (videos.length > 0 && !(await ffmpegAvailable())) {
    throw new Error(
      `${videos.length} demo video(s) are missing (first: ${videos[0]!.path}) and ffmpeg ("${FFMPEG}") is not available. ` +
        'They are committed to git: restore them, or install ffmpeg and run `npm run media -- --videos`.',
    );
  }
  for (const { path, recipe } of videos) {
    await mkdir(dirname(path), { recursive: true });
    await writeVideo(recipe, path);
    log(`video ${path}`);
  }
}
