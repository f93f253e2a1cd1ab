// Loads a study file off the server's event loop (study-off-loop.ts): JSON.parse, the schema, every stimulus and
// every media file checked, as `cli import` does (validate.ts, run through tsx's loader: a worker runs without it).
// Sends the study's id as soon as the file is parsed (the route checks the uploader's role with it), then the loaded
// study in pieces, one per request from the loop, so that no single message takes long to receive: first the value
// with its large arrays (over `pieceItems` items, found down to a study's stimuli) left empty, then each large
// array's items, `pieceItems` at a time, outer arrays first. A refusal is sent as its problems.
import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

const { file, pieceItems } = workerData;
/** How deep large arrays are looked for: box → loaded → study → playlists → playlist → stimuli. */
const DEPTH = 5;

function* pieces(value) {
  const box = { value };
  const large = [];
  // In place: the value is this worker's own. Inner arrays are emptied before the pieces of the outer ones are cut.
  const detach = (holder, path) => {
    for (const key of Object.keys(holder)) {
      const child = holder[key];
      if (child === null || typeof child !== 'object') continue;
      if (path.length < DEPTH - 1) detach(child, [...path, key]);
      if (Array.isArray(child) && child.length > pieceItems) {
        large.push({ path: [...path, key], items: child });
        holder[key] = [];
      }
    }
  };
  detach(box, []);
  yield { root: box.value };
  large.sort((a, b) => a.path.length - b.path.length);
  for (const { path, items } of large) {
    for (let at = 0; at < items.length; at += pieceItems) yield { path, items: items.slice(at, at + pieceItems) };
  }
}

async function load() {
  const { loadStudy, StudyValidationError } = await tsImport('./validate.ts', import.meta.url);
  const readJson = async (path) => {
    const data = JSON.parse(await readFile(path, 'utf8'));
    const id = data !== null && typeof data === 'object' ? data.id : undefined;
    parentPort.postMessage({ id: typeof id === 'string' ? id : null });
    return data;
  };
  try {
    const loaded = await loadStudy(file, undefined, readJson);
    return pieces({ file: loaded.file, study: loaded.study, protocol: loaded.protocol.name, mediaRoot: loaded.mediaRoot, models: [...loaded.models] });
  } catch (error) {
    if (error instanceof StudyValidationError) {
      parentPort.postMessage({ id: null });
      parentPort.postMessage({ refused: { file: error.file, problems: error.problems, total: error.problems.length + error.more, checkedAll: error.checkedAll } });
    } else parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
    return null;
  }
}

const next = await load();
if (next) {
  parentPort.on('message', () => {
    const { value, done } = next.next();
    parentPort.postMessage(done ? { done: true } : value);
    if (done) parentPort.close();
  });
}
