/**
 * Steps shared by the piiface journeys (piiface.spec.ts, piiface-training.spec.ts): the face's alt text and the
 * pixel probe proving the face is drawn on the canvas.
 */
import type { Page } from '@playwright/test';
import { expect } from './fixtures';

/** The alt text of the element over the face (the canvas itself says nothing to assistive technology). */
export const FACE_ALT = 'image of a person expressing an emotion';
const WHITE = [255, 255, 255, 255];

/** The canvas pixel at the centre of the face's alt-text box, read from the WebGL canvas by the stage's probe. */
async function pixelAtFaceCentre(page: Page): Promise<number[]> {
  const box = (await page.getByRole('img', { name: FACE_ALT }).boundingBox())!;
  return page.evaluate(([x, y]) => window.__glimpseStage!.probe(x!, y!), [Math.round(box.x + box.width / 2), Math.round(box.y + box.height / 2)]);
}

/**
 * The face's centre pixel once the face is drawn (not the white job background). Looked for until then, not only
 * at one frame: on a loaded machine, frames at half rate for a while read as a display change, and the stage blanks
 * the face and draws it again once its frames are steady (docs/timing.md); a window made larger draws it again too.
 */
export async function drawnFacePixel(page: Page, what: string, timeout = 30_000): Promise<number[]> {
  let pixel: number[] = [];
  await expect.poll(async () => (pixel = await pixelAtFaceCentre(page)), { timeout, message: `${what} drawn` }).not.toEqual(WHITE);
  return pixel;
}
