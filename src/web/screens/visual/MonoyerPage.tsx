import { StandaloneVisualPage } from './StandaloneVisualPage.js';

const ACUITY_ONLY = ['acuity'] as const;

/** Route /monoyer: the acuity test alone (SPEC §2). */
export default function MonoyerPage() {
  return <StandaloneVisualPage order={ACUITY_ONLY} />;
}
