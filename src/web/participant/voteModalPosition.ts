/**
 * Top of the vote dialog in CSS px (SPEC §2 "Rating dialogs", §9): 40 % of the window height; on a phone
 * 45 % of the outer height in portrait and 7.5 % otherwise.
 */
export function voteModalTop(opts: { phone: boolean; portrait: boolean; innerHeight: number; outerHeight: number }): number {
  if (!opts.phone) return Math.round(0.4 * opts.innerHeight);
  return Math.round((opts.portrait ? 0.45 : 0.075) * opts.outerHeight);
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Where the vote dialog goes while 3D objects stay on screen (inspect), client CSS px: the band the layout left free
 * beside the objects (right of them) or below them, whichever is larger, `gap` px from the objects and from the
 * stage's edges. The dialog is kept inside it (it scrolls rather than spill over an object). `stage` is the canvas's
 * client rectangle, `objects` the objects' rectangles on the canvas (the held step's items).
 */
export function answerSlot(stage: Box, objects: readonly Box[], gap: number): Box {
  const right = Math.max(0, ...objects.map((r) => r.x + r.width));
  const bottom = Math.max(0, ...objects.map((r) => r.y + r.height));
  const beside = { x: stage.x + right + gap, y: stage.y + gap, width: stage.width - right - 2 * gap, height: stage.height - 2 * gap };
  const below = { x: stage.x + gap, y: stage.y + bottom + gap, width: stage.width - 2 * gap, height: stage.height - bottom - 2 * gap };
  const area = (b: Box) => Math.max(0, b.width) * Math.max(0, b.height);
  const slot = area(below) > area(beside) ? below : beside;
  return { ...slot, width: Math.max(0, slot.width), height: Math.max(0, slot.height) };
}
