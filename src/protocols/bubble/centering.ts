/**
 * The centering gate's rule (SPEC §5, §9): the pointer must stay in the zone around the mark at the centre of the
 * screen for 2000 ms, checked every 50 ms; leaving the zone starts the count again. Pure; unit-tested.
 */

export const CENTERING_HOLD_MS = 2000;
export const CENTERING_TICK_MS = 50;
/** Radius of the zone around the mark, CSS px (the spec does not give it: the size of the mark). */
export const CENTERING_ZONE_PX = 20;

export function inCentreZone(pointer: { x: number; y: number } | null, centre: { x: number; y: number }, zonePx = CENTERING_ZONE_PX): boolean {
  return pointer !== null && Math.hypot(pointer.x - centre.x, pointer.y - centre.y) <= zonePx;
}

/** Time held in the zone after one more tick. */
export function nextHold(heldMs: number, inZone: boolean): number {
  return inZone ? heldMs + CENTERING_TICK_MS : 0;
}

export function isCentered(heldMs: number): boolean {
  return heldMs >= CENTERING_HOLD_MS;
}
