import type { BenchSection } from '../section.js';

// TODO(bench:report): written by a helper
export const analysisSection: BenchSection = {
  title: 'bench:analysis',
  latest: () => ({ ran: '—', headline: '—', files: [] }),
  render: () => '',
};
