import type { BenchSection } from '../section.js';

// TODO(bench:report): written by a helper
export const displaySection: BenchSection = {
  title: 'bench:display',
  latest: () => ({ ran: '—', headline: '—', files: [] }),
  render: () => '',
};
