import type { InteractiveModule } from '../types.js';
import { BubblePhase } from './BubblePhase.js';
import { isFreeTask, parseBubbleQuery, type BubbleQuery } from './bubbleQuery.js';
import './bubble.css';

/** The bubble's web part: its query parameters (SPEC §2), its Test view and trial machine. */
const bubbleWeb: InteractiveModule<BubbleQuery> = {
  kind: 'interactive',
  parseQuery: parseBubbleQuery,
  // The server completes a free-task session on its mouse logs: tell it.
  playlistQuery: (query): Record<string, string> => (isFreeTask(query) ? { ft: '1' } : {}),
  TestView: BubblePhase,
};
export default bubbleWeb;
