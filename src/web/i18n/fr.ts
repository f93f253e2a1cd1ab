import type { Strings } from './en.js';

/** French texts, used on the nantes (lab) platform. Same keys as en.ts. */
export const fr: Strings = {
  // --- common ---
  loading: 'Chargement...',
  notFoundTitle: "The page you requested doesn't exist",
  notFoundCode: 'Error 404',
};
