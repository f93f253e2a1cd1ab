import type { Platform } from '../../contract/platforms.js';
import { en, type Strings } from './en.js';
import { fr } from './fr.js';

export type { Strings };

/** One table per language: French on the nantes lab platform, English elsewhere. */
export function stringsFor(platform: Platform): Strings {
  return platform === 'nantes' ? fr : en;
}
