/**
 * Every participant-facing English text (SPEC exact strings). French is in fr.ts with the same keys.
 * Add keys under the section of the screen that uses them; never write participant text in a component.
 */
export const en = {
  // --- common ---
  loading: 'Loading...',
  notFoundTitle: "The page you requested doesn't exist",
  notFoundCode: 'Error 404',
  // --- (sections are added by each screen) ---
};
export type Strings = typeof en;
