import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { ALL_PROTOCOLS, type Protocol } from '../../contract/protocols.js';
import { StudyFile } from '../../contract/study.js';
import { ajvErrorDetails, type ErrorDetail } from '../errors.js';
import { sourceProblems, stimulusSchemaOf, stimulusSources } from './stimulus-rules.js';

/** A study file that does not pass: every problem, each with its JSON path ($.playlists[0].stimuli[3].sourceB). */
export class StudyValidationError extends Error {
  constructor(
    readonly file: string,
    readonly problems: ErrorDetail[],
  ) {
    super(`${file}: ${problems.length} problem(s)\n${problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`);
  }
}

export interface LoadedStudy {
  file: string;
  study: StudyFile;
  /** Absolute path of the study's media folder. */
  mediaRoot: string;
}

const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
const validators = new Map<TSchema, ValidateFunction>();
function validatorOf(schema: TSchema): ValidateFunction {
  let v = validators.get(schema);
  if (!v) validators.set(schema, (v = ajv.compile(schema)));
  return v;
}

/** Errors under one stimulus are re-checked against the protocol's own stimulus schema (the union's are noise). */
const UNDER_A_STIMULUS = /^\/playlists\/\d+\/(stimuli|training)\/\d+(\/|$)/;

/**
 * Reads and checks a study file: the JSON schema (closed objects), the stimulus shape the job's protocol needs,
 * and that every referenced media file exists inside the media folder. Collects every problem before failing.
 */
export async function loadStudy(path: string): Promise<LoadedStudy> {
  const file = resolve(path);
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new StudyValidationError(file, [{ path: '$', message: `not readable JSON: ${(error as Error).message}` }]);
  }

  const problems: ErrorDetail[] = [];
  const validateStudy = validatorOf(StudyFile);
  if (!validateStudy(data)) {
    problems.push(...ajvErrorDetails((validateStudy.errors ?? []).filter((e) => !UNDER_A_STIMULUS.test(e.instancePath)), '$'));
  }
  const doc = (data ?? {}) as { job?: { subjectiveProtocol?: unknown }; media?: unknown; playlists?: unknown };
  const protocol = (ALL_PROTOCOLS as readonly unknown[]).includes(doc.job?.subjectiveProtocol)
    ? (doc.job!.subjectiveProtocol as Protocol)
    : null;

  const mediaRoot = typeof doc.media === 'string' ? resolve(dirname(file), doc.media) : null;
  const mediaRootReal = mediaRoot ? await realDirectory(mediaRoot) : null;
  if (mediaRoot && !mediaRootReal) problems.push({ path: '$.media', message: `media folder ${mediaRoot} does not exist` });

  if (protocol && Array.isArray(doc.playlists)) {
    const validateStimulus = validatorOf(stimulusSchemaOf(protocol));
    for (const [p, playlist] of doc.playlists.entries()) {
      for (const list of ['stimuli', 'training'] as const) {
        const stimuli = (playlist as Record<string, unknown> | null)?.[list];
        if (!Array.isArray(stimuli)) continue;
        for (const [s, stimulus] of stimuli.entries()) {
          const at = `$.playlists[${p}].${list}[${s}]`;
          if (!validateStimulus(stimulus)) {
            problems.push(...ajvErrorDetails(validateStimulus.errors ?? [], at));
            continue;
          }
          const record = stimulus as Record<string, unknown>;
          for (const [field, message] of sourceProblems(protocol, record)) problems.push({ path: field ? `${at}.${field}` : at, message });
          if (!mediaRootReal) continue;
          for (const [field, source] of stimulusSources(protocol, record)) {
            const problem = await mediaFileProblem(mediaRootReal, source);
            if (problem) problems.push({ path: `${at}.${field}`, message: problem });
          }
        }
      }
    }
  }

  if (problems.length > 0) throw new StudyValidationError(file, problems);
  return { file, study: data as StudyFile, mediaRoot: mediaRootReal! };
}

async function realDirectory(path: string): Promise<string | null> {
  const real = await realpath(path).catch(() => null);
  return real && (await stat(real)).isDirectory() ? real : null;
}

/** Why this media path is not usable, or null when it is a regular file inside the media folder. */
async function mediaFileProblem(mediaRoot: string, source: string): Promise<string | null> {
  const real = await realpath(resolve(mediaRoot, source)).catch(() => null);
  if (!real) return `media file ${source} not found in ${mediaRoot}`;
  if (!real.startsWith(mediaRoot + sep)) return `media file ${source} is outside the media folder`;
  if (!(await stat(real)).isFile()) return `media file ${source} is not a file`;
  return null;
}
