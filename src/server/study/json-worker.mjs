// Reads and parses one JSON file off the server's event loop (json-off-loop.ts), then hands the value back in
// pieces, one per request from the loop, so that no single message takes long to receive. Plain JavaScript: a
// worker runs without tsx. First piece: the value with its large arrays (over `pieceItems` items, found down to a
// study's stimuli) left empty; then each large array's items, `pieceItems` at a time, outer arrays first.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const { file, pieceItems } = workerData;
/** How deep large arrays are looked for: box → study → playlists → playlist → stimuli. */
const DEPTH = 4;

function* pieces(value) {
  const box = { value };
  const large = [];
  // In place: the parsed value is this worker's own. Inner arrays are emptied before the pieces of the outer ones are cut.
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

let next = null;
try {
  next = pieces(JSON.parse(readFileSync(file, 'utf8')));
} catch (error) {
  parentPort.postMessage({ error: error.message });
}
if (next) {
  parentPort.on('message', () => {
    const { value, done } = next.next();
    parentPort.postMessage(done ? { done: true } : value);
    if (done) parentPort.close();
  });
}
