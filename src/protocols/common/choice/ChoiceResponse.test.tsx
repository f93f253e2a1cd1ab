// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../../web/i18n/en.js';
import { fr } from '../../../web/i18n/fr.js';
import { button, click, render, type Rendered } from '../../../web/testing/renderDom.js';
import { stimulusOf } from '../levels/testSupport.js';
import { mldsLabels } from '../../mlds/plan.js';
import { tripletLabels } from '../../triplet/plan.js';
import { ChoiceResponse, type ChoiceLabels } from './ChoiceResponse.js';

let view: Rendered | undefined;
afterEach(() => view?.unmount());

function show(labels: ChoiceLabels | null, strings = en) {
  const onAnswer = vi.fn();
  const onReplay = vi.fn();
  view = render(
    <ChoiceResponse params={{ labels }} stimulus={stimulusOf()} index={1} total={2} training={false} strings={strings} busy={false} onAnswer={onAnswer} onReplay={onReplay} />,
  );
  return { v: view, onAnswer, onReplay };
}
const labelsOf = (v: Rendered) => [...v.container.querySelectorAll('button')].map((b) => b.textContent);

describe('two-option dialog (MLDS, triplet)', () => {
  it('MLDS videos: top or bottom pair, Replay Videos; the bottom pair answers optionimageB', async () => {
    const { v, onAnswer } = show(mldsLabels(3));
    expect(labelsOf(v)).toEqual(['Top pair of videos', 'Bottom pair of videos', 'Replay Videos']);
    await click(button(v.container, 'Bottom pair of videos'));
    expect(v.container.querySelector('.vote-choice')?.textContent).toBe('Bottom pair of videos');
    await click(button(v.container, 'Submit'));
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith('optionimageB');
  });

  it('triplet images on the lab platform: Modifier returns to the choice, Valider sends the left side', async () => {
    const { v, onAnswer, onReplay } = show(tripletLabels(1), fr);
    expect(labelsOf(v)).toEqual(['Image de gauche', 'Image de droite', 'Revoir les images']);
    await click(button(v.container, 'Image de droite'));
    await click(button(v.container, 'Modifier'));
    await click(button(v.container, 'Image de gauche'));
    await click(button(v.container, 'Valider'));
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith('optionimageA');
    expect(onReplay).not.toHaveBeenCalled();
  });

  it('Replay asks the page to play again', async () => {
    const { v, onReplay, onAnswer } = show(tripletLabels(3));
    await click(button(v.container, 'Replay Videos'));
    expect(onReplay).toHaveBeenCalledTimes(1);
    expect(onAnswer).not.toHaveBeenCalled();
  });

  it("shows 'Error of category modal' for a layout without labels", () => {
    const { v } = show(mldsLabels(4));
    expect(v.text()).toBe('Error of category modal');
    expect(labelsOf(v)).toEqual([]);
  });
});
