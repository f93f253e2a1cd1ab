import { StandaloneVisualPage } from './StandaloneVisualPage.js';

/** SPEC §2 names /visual_test the colour-blindness test; the acuity test has its own page, /monoyer. */
const COLOR_ONLY = ['color'] as const;

/** Route /visual_test: the colour-vision plates. */
export default function ColorPlatesPage() {
  return <StandaloneVisualPage order={COLOR_ONLY} />;
}
