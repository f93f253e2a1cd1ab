import type { BenchSection } from '../section.js';

// TODO(bench:report): written by a helper
export const bubbleSection: BenchSection = {
  title: 'bench:bubble',
  latest: () => ({ ran: '—', headline: '—', files: [] }),
  render: () => '',
};
