import type { BenchSection } from '../section.js';

// TODO(bench:report): written by a helper
export const threeDSection: BenchSection = {
  title: 'bench:3d',
  latest: () => ({ ran: '—', headline: '—', files: [] }),
  render: () => '',
};
