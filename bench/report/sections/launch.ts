import type { BenchSection } from '../section.js';

// TODO(bench:report): written by a helper
export const launchSection: BenchSection = {
  title: 'bench:launch',
  latest: () => ({ ran: '—', headline: '—', files: [] }),
  render: () => '',
};
