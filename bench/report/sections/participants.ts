import type { BenchSection } from '../section.js';

// TODO(bench:report): written by a helper
export const participantsSection: BenchSection = {
  title: 'bench:participants',
  latest: () => ({ ran: '—', headline: '—', files: [] }),
  render: () => '',
};
