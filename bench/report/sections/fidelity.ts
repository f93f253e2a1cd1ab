import type { BenchSection } from '../section.js';

// TODO(bench:report): written by a helper
export const fidelitySection: BenchSection = {
  title: 'bench:fidelity',
  latest: () => ({ ran: '—', headline: '—', files: [] }),
  render: () => '',
};
