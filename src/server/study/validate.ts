import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import type { JobFields } from '../../contract/job.js';
import { IMAGE_EXT, mediaType, MODEL_EXT, VIDEO_EXT } from '../../contract/media-types.js';
import { OBJECT_OPTIONS_SCHEMA, objectOptionProblems, type ObjectOptions } from '../../contract/objects.js';
import { MEDIA_FILE_PATTERN } from '../../contract/stimulus.js';
import { htmlImageSources, jobHtmlFields } from '../../contract/study-html.js';
import type { StimulusCheck } from '../../contract/quality.js';
import { StudyFile } from '../../contract/study.js';
import { PROTOCOLS, protocolOf, type ProtocolRegistry } from '../../protocols/registry.js';
import type { JsonSchema, ProtocolDefinition } from '../../protocols/types.js';
import { ajvErrorDetails, type ErrorDetail } from '../errors.js';
import { checkGltf, type CheckedModel } from './gltf-check.js';
import { ModelProblem } from './model-limits.js';
import { checkPly } from './ply.js';
import { imageColourProblem } from './image-colour.js';
import { videoCodecProblem } from './video-codec.js';
import { PRECISION_FAMILIES } from '../quality/precision.js';
import { designProblems, pairSpec } from '../adaptive/design.js';

/** At most this many problems are kept and told; the others are only counted (a junk file has one per stimulus). */
export const MAX_STUDY_PROBLEMS = 100;
/** Stimuli checked between two turns of the event loop (about 5 ms of work here). */
const STIMULI_PER_TURN = 1_000;

/**
 * A study file that does not pass: its first MAX_STUDY_PROBLEMS problems, each with its JSON path
 * ($.playlists[0].stimuli[3].sourceB), and how many more there were.
 */
export class StudyValidationError extends Error {
  readonly more: number;
  constructor(
    readonly file: string,
    readonly problems: ErrorDetail[],
    total = problems.length,
    /** False when the stimuli were no longer checked past MAX_STUDY_PROBLEMS: `total` is then a lower bound. */
    readonly checkedAll = true,
  ) {
    const more = total - problems.length;
    const count = checkedAll ? `${total} problem(s)` : `more than ${total - 1} problems (the stimuli after the first ${MAX_STUDY_PROBLEMS} problems were not checked)`;
    super(`${file}: ${count}\n${problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}${more > 0 ? `\n  ... and ${more} more` : ''}`);
    this.more = more;
  }
}

/** Problems as they are found: the first MAX_STUDY_PROBLEMS kept, the rest counted. */
class ProblemList {
  readonly kept: ErrorDetail[] = [];
  total = 0;
  /** The stimuli were no longer checked once the list was full: `total` counts those found until then. */
  stopped = false;
  push(...found: ErrorDetail[]): void {
    for (const problem of found) if (this.total++ < MAX_STUDY_PROBLEMS) this.kept.push(problem);
  }
}

export interface LoadedStudy {
  file: string;
  study: StudyFile;
  protocol: ProtocolDefinition;
  /** Absolute path of the study's media folder. */
  mediaRoot: string;
  /** Every 3D object of the study, checked: its side files (a .gltf's buffers and textures) and loading bytes. */
  models: Map<string, CheckedModel>;
}

/** Reads and parses a study file: on the event loop (the CLI), or off it (the console: json-off-loop.ts). */
export type StudyJsonReader = (file: string) => Promise<unknown>;
const readJsonFile: StudyJsonReader = async (file) => JSON.parse(await readFile(file, 'utf8'));

const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
const validators = new Map<JsonSchema, ValidateFunction>();
function validatorOf(schema: JsonSchema): ValidateFunction {
  let v = validators.get(schema);
  if (!v) validators.set(schema, (v = ajv.compile(schema)));
  return v;
}

/**
 * Reads and checks a study file: the JSON schema (closed objects), the stimulus shape the job's protocol needs,
 * and that every referenced media file exists inside the media folder. Collects every problem before failing.
 */
export async function loadStudy(path: string, protocols: ProtocolRegistry = PROTOCOLS, readJson: StudyJsonReader = readJsonFile): Promise<LoadedStudy> {
  const file = resolve(path);
  let data: unknown;
  try {
    data = await readJson(file);
  } catch (error) {
    throw new StudyValidationError(file, [{ path: '$', message: `not readable JSON: ${(error as Error).message}` }]);
  }

  const problems = new ProblemList();
  const validateStudy = validatorOf(StudyFile);
  const schemaPassed = validateStudy(data);
  if (!schemaPassed) {
    problems.push(...ajvErrorDetails(validateStudy.errors ?? [], '$'));
  }
  const doc = (data ?? {}) as { job?: { subjectiveProtocol?: unknown }; media?: unknown; playlists?: unknown };
  const name = doc.job?.subjectiveProtocol;
  const protocol = typeof name === 'string' ? protocolOf(name, protocols) : null;
  if (typeof name === 'string' && !protocol) {
    problems.push({ path: '$.job.subjectiveProtocol', message: `unknown protocol ${name}; must be one of ${Object.keys(protocols).join(', ')}` });
  }

  // The media folder lives in the study file's folder (symlinks resolved): a study file cannot publish /etc, nor a
  // folder beside the database.
  const studyDir = await realpath(dirname(file));
  const mediaRoot = typeof doc.media === 'string' ? resolve(dirname(file), doc.media) : null;
  let mediaRootReal = mediaRoot ? await realDirectory(mediaRoot) : null;
  if (mediaRoot && !mediaRootReal) problems.push({ path: '$.media', message: `media folder ${mediaRoot} does not exist` });
  if (mediaRootReal && mediaRootReal !== studyDir && !mediaRootReal.startsWith(studyDir + sep)) {
    problems.push({ path: '$.media', message: `media folder ${mediaRootReal} is outside the study file's folder ${studyDir}` });
    mediaRootReal = null;
  }

  const used = new Set<string>();
  const models = new Map<string, CheckedModel>();
  const category = (doc.job as { category_id?: unknown } | undefined)?.category_id;
  /** What is wrong with a stimulus's media file, whichever stimulus names it (null: nothing). */
  const sourceProblem = async (source: string): Promise<string | null> => {
    const kind = mediaType(source, null)?.kind;
    if (kind === undefined) return `${source} is not an image, a video or a 3D object (${MEDIA_EXTENSIONS})`;
    if (kind === 'model' && !showsObjects(protocol!, category)) {
      return `${source} is a 3D object, which ${protocol!.name}${protocol!.objectCategories ? ` with categoryTest ${category}` : ''} cannot show (3D objects are shown by ${objectProtocols(protocols)})`;
    }
    return mediaRootReal ? usableMediaProblem(mediaRootReal, source, models) : null;
  };
  // Each file is checked once, however many stimuli use it.
  const settledSources = new Map<string, string | null>();
  if (protocol && Array.isArray(doc.playlists)) {
    const validateStimulus = validatorOf(protocol.stimulus.schema);
    let checked = 0;
    stimuliLoop: for (const [p, playlist] of doc.playlists.entries()) {
      for (const list of ['stimuli', 'training'] as const) {
        const stimuli = (playlist as Record<string, unknown> | null)?.[list];
        if (!Array.isArray(stimuli)) continue;
        for (const [s, stimulus] of stimuli.entries()) {
          // A console upload is checked in a worker (study-off-loop.ts), but a server with another protocol table
          // checks it on its loop: other requests get their turn every STIMULI_PER_TURN stimuli. A file already past
          // MAX_STUDY_PROBLEMS is not checked further (300,000 invalid stimuli took about 1 s; issue 34).
          if (++checked % STIMULI_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
          if (problems.total > MAX_STUDY_PROBLEMS) {
            problems.stopped = true;
            break stimuliLoop;
          }
          const at = `$.playlists[${p}].${list}[${s}]`;
          if (!validateStimulus(stimulus)) {
            problems.push(...ajvErrorDetails(validateStimulus.errors ?? [], at));
            continue;
          }
          for (const [field, message] of protocol.stimulus.problems?.(stimulus, protocol.name) ?? []) {
            problems.push({ path: field ? `${at}.${field}` : at, message });
          }
          problems.push(...checkProblems((stimulus as { check?: StimulusCheck }).check, list, protocol, `${at}.check`));
          for (const [, source] of protocol.stimulus.media(stimulus)) used.add(source);
          for (const [field, source] of protocol.stimulus.media(stimulus)) {
            // Known sources are answered without a turn of promises (300,000 stimuli share a few files).
            let problem = settledSources.get(source);
            if (problem === undefined) settledSources.set(source, (problem = await sourceProblem(source)));
            if (problem) problems.push({ path: `${at}.${field}`, message: problem });
          }
        }
      }
    }
  }

  const job = (doc as { job?: Partial<JobFields> }).job;
  // The job's 3D options get the same checks as a stimulus's `object` (genericStimulus), beyond the schema.
  if (job && typeof job === 'object') problems.push(...objectOptionsProblems(job.objects, '$.job.objects'));

  // Images of the study's HTML are media files of the study too (the page shows no remote resource).
  if (job && typeof job === 'object') {
    for (const [at, html] of jobHtmlFields(job)) {
      for (const source of htmlImageSources(html)) {
        const problem = !new RegExp(MEDIA_FILE_PATTERN).test(source)
          ? `image ${source.slice(0, 100)} must be a file of the study's media folder (a relative path), not a remote address`
          : mediaType(source, null)?.kind !== 'image'
            ? `image ${source} is not an image (${MEDIA_EXTENSIONS})`
            : mediaRootReal
              ? await mediaFileProblem(mediaRootReal, source)
              : null;
        if (problem) problems.push({ path: at, message: problem });
      }
    }
  }

  // Attributes are declared once per media file: a name no stimulus uses is a typo, not an extra.
  const attributes = (data as { mediaAttributes?: unknown } | null)?.mediaAttributes;
  if (protocol && schemaPassed) problems.push(...(await studyDesignProblems(data as StudyFile, protocol, sourceProblem, used)));
  if (protocol && attributes && typeof attributes === 'object') {
    for (const path of Object.keys(attributes)) {
      if (!used.has(path)) problems.push({ path: `$.mediaAttributes[${JSON.stringify(path)}]`, message: `${path} is not a media file of this study's stimuli` });
    }
  }

  if (protocol) problems.push(...qualityProblems((data as { quality?: { rules?: Record<string, unknown> } } | null)?.quality?.rules, protocol));
  if (protocol) problems.push(...stopWhenProblems((data as { quality?: { stopWhen?: unknown } } | null)?.quality?.stopWhen, protocol));
  if (protocol && (data as { quality?: { allocation?: unknown } } | null)?.quality?.allocation === 'widest-intervals' && protocol.analysis.family !== 'rating') {
    problems.push({ path: '$.quality.allocation', message: `"widest-intervals" applies to rating protocols only (a MOS interval per stimulus); ${protocol.name} is a ${protocol.analysis.family} protocol` });
  }

  if (problems.total > 0) throw new StudyValidationError(file, problems.kept, problems.total, !problems.stopped);
  return { file, study: data as StudyFile, protocol: protocol!, mediaRoot: mediaRootReal!, models };
}

/**
 * The design's checks (adaptive/design.ts), once the file passed the schema; a design's conditions are media of
 * the study as stimuli's are, and its pairs are stimuli of the protocol.
 */
async function studyDesignProblems(study: StudyFile, protocol: ProtocolDefinition, sourceProblem: (source: string) => Promise<string | null>, used: Set<string>): Promise<ErrorDetail[]> {
  const problems = await designProblems(study, protocol, (path) => study.mediaAttributes?.[path] ?? {}, sourceProblem);
  if (study.design?.mode !== 'asap' || problems.some((p) => p.path === '$.design.mode')) return problems;
  for (const { conditions } of study.design.contents) for (const source of conditions) used.add(source);
  const [first, second] = study.design.contents[0]!.conditions;
  const validatePair = validatorOf(protocol.stimulus.schema);
  if (!validatePair(pairSpec(study.design, first!, second!))) problems.push(...ajvErrorDetails(validatePair.errors ?? [], '$.design.pairFields'));
  return problems;
}

/** What the schema cannot say about a gold, trap or attention-check declaration. */
function checkProblems(check: StimulusCheck | undefined, list: 'stimuli' | 'training', protocol: ProtocolDefinition, at: string): ErrorDetail[] {
  if (!check) return [];
  if (list === 'training') return [{ path: at, message: 'gold, trap and attention checks belong among the test stimuli: training answers are not stored' }];
  if (check.tolerance === undefined) return [];
  if (check.kind !== 'gold') return [{ path: `${at}.tolerance`, message: `a tolerance applies to gold stimuli only (a ${check.kind} has one right answer)` }];
  if (!protocol.checks?.scored) return [{ path: `${at}.tolerance`, message: `${protocol.name} answers are choices: a gold answer is right or wrong, without tolerance` }];
  return [];
}

/** Rules that only a rating scale can apply, set explicitly on another protocol, are a mistake worth telling. */
function qualityProblems(rules: Record<string, unknown> | undefined, protocol: ProtocolDefinition): ErrorDetail[] {
  if (!rules || protocol.analysis.family === 'rating') return [];
  return (['minVariance', 'varianceAfterRatings', 'minCorrelation', 'correlationAfterSessions'] as const)
    .filter((rule) => rules[rule] !== undefined && rules[rule] !== false)
    .map((rule) => ({ path: `$.quality.rules.${rule}`, message: `applies to rating scales only; ${protocol.name} is a ${protocol.analysis.family} protocol (remove it or set false)` }));
}

/** Stopping for precision judges a per-stimulus MOS or JOD scale, which only rating and pair protocols have. */
function stopWhenProblems(stopWhen: unknown, protocol: ProtocolDefinition): ErrorDetail[] {
  const family = protocol.analysis.family;
  if (stopWhen === undefined || (PRECISION_FAMILIES as readonly string[]).includes(family)) return [];
  return [{ path: '$.quality.stopWhen', message: `applies to rating and pair comparison protocols only (a MOS or JOD per stimulus); ${protocol.name} is a ${family} protocol` }];
}

/**
 * What the schema cannot say about 3D options (bounds in order, a zoom range holding the fitted view); none when
 * the options do not pass the schema, whose own errors are already told.
 */
function objectOptionsProblems(options: unknown, at: string): ErrorDetail[] {
  if (options === undefined || !validatorOf(OBJECT_OPTIONS_SCHEMA)(options)) return [];
  return objectOptionProblems(options as ObjectOptions).map(([field, message]) => ({ path: `${at}.${field}`, message }));
}

function showsObjects(protocol: ProtocolDefinition, category: unknown): boolean {
  const categories = protocol.objectCategories;
  return categories === 'all' || (categories !== undefined && categories.includes(category as number));
}

/** The protocols (and categoryTests) whose pages draw 3D objects, for the refusal of a 3D object elsewhere. */
function objectProtocols(protocols: ProtocolRegistry): string {
  return Object.values(protocols)
    .filter((p) => p.objectCategories)
    .map((p) => (p.objectCategories === 'all' ? p.name : `${p.name} with categoryTest ${p.objectCategories!.join(' or ')}`))
    .join(', ');
}

const MEDIA_EXTENSIONS = `allowed: ${[...Object.keys(IMAGE_EXT), ...Object.keys(VIDEO_EXT), ...Object.keys(MODEL_EXT)].map((e) => `.${e}`).join(', ')}`;

async function realDirectory(path: string): Promise<string | null> {
  const real = await realpath(path).catch(() => null);
  return real && (await stat(real)).isDirectory() ? real : null;
}

/**
 * Why this media file cannot be shown: not a file of the media folder, an image whose values are not sRGB as the
 * stage draws them, a video the player cannot decode, or a 3D object that is malformed or over the limits (a
 * checked one goes into `models`).
 */
async function usableMediaProblem(mediaRoot: string, source: string, models: Map<string, CheckedModel>): Promise<string | null> {
  const problem = await mediaFileProblem(mediaRoot, source);
  const kind = mediaType(source, null)?.kind;
  if (problem) return problem;
  if (kind === 'image') return imageColourProblem(resolve(mediaRoot, source), source);
  if (kind === 'video') return videoCodecProblem(resolve(mediaRoot, source), source);
  try {
    models.set(source, await (source.toLowerCase().endsWith('.ply') ? checkPly : checkGltf)(mediaRoot, source));
    return null;
  } catch (error) {
    if (error instanceof ModelProblem) return error.message;
    throw error;
  }
}

/** Why this media path is not usable, or null when it is a regular file inside the media folder. */
async function mediaFileProblem(mediaRoot: string, source: string): Promise<string | null> {
  const real = await realpath(resolve(mediaRoot, source)).catch(() => null);
  if (!real) return `media file ${source} not found in ${mediaRoot}`;
  if (!real.startsWith(mediaRoot + sep)) return `media file ${source} is outside the media folder`;
  if (!(await stat(real)).isFile()) return `media file ${source} is not a file`;
  return null;
}
