// @vitest-environment jsdom
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../i18n/en.js';
import { fr } from '../../i18n/fr.js';
import { button, click, render, settle, type, type Rendered } from '../../testing/renderDom.js';
import { VisualScreening, type VisualScreeningKind } from './VisualScreening.js';
import { ACUITY_BYPASS_META } from './visualChecks.js';

let page: Rendered | undefined;
afterEach(() => {
  page?.unmount();
  document.head.querySelector(`meta[name="${ACUITY_BYPASS_META}"]`)?.remove();
});

function mount(order: VisualScreeningKind[], strings = en) {
  const onPass = vi.fn();
  const onExit = vi.fn();
  page = render(<VisualScreening order={order} strings={strings} onPass={onPass} onExit={onExit} />);
  return { page, onPass, onExit };
}

async function answerAcuity(p: Rendered, letters: string, strings = en) {
  expect(p.container.querySelector('img')?.getAttribute('src')).toBe('/visual/acuity-chart.png');
  await type(p.container.querySelector('input[name="acuity-answer"]'), letters);
  await click(button(p.container, strings.submit));
  await settle(); // the check hashes with WebCrypto, asynchronously
}

async function answerPlates(p: Rendered, answers: string[], strings = en) {
  for (const [i, answer] of answers.entries()) {
    expect(p.container.querySelector('img')?.getAttribute('src')).toBe(`/visual/plate-${i + 1}.png`);
    expect(p.text()).toContain(strings === en ? `Plate ${i + 1} of 4` : `Planche ${i + 1} sur 4`);
    await type(p.container.querySelector('input[name="plate-answer"]'), answer);
    await click(button(p.container, strings.next));
  }
}

const paragraphs = (p: Rendered) => [...p.container.querySelectorAll('p')].map((e) => e.textContent);

describe('VisualScreening', () => {
  it('acuity then colour: both right gives the success screen, Continue calls onPass', async () => {
    const { page, onPass, onExit } = mount(['acuity', 'color']);
    expect(page.text()).toContain('Visual acuity test');
    await answerAcuity(page, 'RCYHOFMESPA');
    await answerPlates(page, ['8', '15', '45', '26']);
    expect(paragraphs(page)).toEqual(['You succeed the visual test']);
    expect(onPass).not.toHaveBeenCalled();
    await click(button(page.container, 'Continue'));
    expect(onPass).toHaveBeenCalledTimes(1);
    expect(onExit).not.toHaveBeenCalled();
  });

  it('a wrong acuity answer shows the three failure lines and never the plates', async () => {
    const { page, onPass, onExit } = mount(['acuity', 'color']);
    // Case and spaces do not matter (issue 10); a wrong letter does.
    await answerAcuity(page, 'rcyhofmespb');
    expect(paragraphs(page)).toEqual([
      "Sorry you didn't passed the accuity test.",
      'You cannot process further.',
      'Thank you for your interest and sorry for the inconvenience.',
    ]);
    expect(page.container.querySelector('img')).toBeNull();
    await click(button(page.container, 'Exit the test'));
    expect(onExit).toHaveBeenCalledTimes(1);
    expect(onPass).not.toHaveBeenCalled();
  });

  it('colour first: one misread plate fails after the fourth plate, before any acuity chart', async () => {
    const { page, onPass, onExit } = mount(['color', 'acuity']);
    expect(page.text()).toContain('Colour vision test');
    await answerPlates(page, ['8', '15', '46', '26']);
    expect(paragraphs(page)).toEqual(["Sorry you didn't passed the color vision test."]);
    expect(page.container.querySelector('input')).toBeNull();
    await click(button(page.container, 'Exit the test'));
    expect(onExit).toHaveBeenCalledTimes(1);
    expect(onPass).not.toHaveBeenCalled();
  });

  it('colour first, then acuity: success needs both', async () => {
    const { page, onPass } = mount(['color', 'acuity']);
    await answerPlates(page, ['8', '15', '45', '26']);
    expect(page.text()).toContain('Visual acuity test');
    expect(page.text()).not.toContain('You succeed the visual test');
    await answerAcuity(page, 'RCYHOFMESPA');
    await click(button(page.container, 'Continue'));
    expect(onPass).toHaveBeenCalledTimes(1);
  });

  it('accepts the developer bypass published by the server as a SHA-256 meta tag', async () => {
    const meta = document.createElement('meta');
    meta.name = ACUITY_BYPASS_META;
    meta.content = createHash('sha256').update('open-sesame').digest('hex');
    document.head.appendChild(meta);
    const { page } = mount(['acuity']);
    await answerAcuity(page, 'open-sesame');
    expect(paragraphs(page)).toEqual(['You succeed the visual test']);
  });

  it('the same bypass value fails when the server published none', async () => {
    const { page } = mount(['acuity']);
    await answerAcuity(page, 'open-sesame');
    expect(page.text()).toContain("Sorry you didn't passed the accuity test.");
  });

  it('speaks French with the French table (nantes platform)', async () => {
    const { page } = mount(['color'], fr);
    expect(page.text()).toContain('Test de vision des couleurs');
    await answerPlates(page, ['8', '15', '45', '26'], fr);
    expect(paragraphs(page)).toEqual(['Vous avez réussi le test visuel']);
    expect(button(page.container, 'Continuer')).toBeTruthy();
  });

  it('the submit button stays disabled until something is typed', () => {
    const { page } = mount(['acuity']);
    expect(button(page.container, 'Submit').disabled).toBe(true);
  });
});
