import type { InteractiveModule } from '../types.js';
import { PiifacePhase } from './PiifacePhase.js';
import { ProgressBar } from './ProgressBar.js';
import './piiface.css';

/**
 * The piiface web part: its Test view and trial machine, and the progress tracker that runs over every phase
 * (SPEC §2). Its page has only `platform` as query (read by the shared flow); the question sits in the answer panel.
 */
const piifaceWeb: InteractiveModule<null> = {
  kind: 'interactive',
  parseQuery: () => null,
  questionBand: () => false,
  TestView: PiifacePhase,
  PageOverlay: ProgressBar,
};
export default piifaceWeb;
