import type { BenchSection } from '../section.js';

// TODO(bench:report): written by a helper
export const consoleSection: BenchSection = {
  title: 'bench:console',
  latest: () => ({ ran: '—', headline: '—', files: [] }),
  render: () => '',
};
