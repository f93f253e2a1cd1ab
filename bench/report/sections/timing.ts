import type { BenchSection } from '../section.js';

// TODO(bench:report): written by a helper
export const timingSection: BenchSection = {
  title: 'bench:timing',
  latest: () => ({ ran: '—', headline: '—', files: [] }),
  render: () => '',
};
