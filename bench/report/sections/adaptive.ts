import type { BenchSection } from '../section.js';

// TODO(bench:report): written by a helper
export const adaptiveSection: BenchSection = {
  title: 'bench:adaptive',
  latest: () => ({ ran: '—', headline: '—', files: [] }),
  render: () => '',
};
