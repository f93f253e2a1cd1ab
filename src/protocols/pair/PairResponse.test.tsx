// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../web/i18n/en.js';
import { fr } from '../../web/i18n/fr.js';
import { button, click, render, type Rendered } from '../../web/testing/renderDom.js';
import type { PairAnswer } from '../common/choice/ChoiceResponse.js';
import { PairResponse } from './PairResponse.js';

let page: Rendered | undefined;
afterEach(() => page?.unmount());

function mount(category: number, strings = en, busy = false) {
  const onAnswer = vi.fn<(answer: PairAnswer) => void>();
  const onReplay = vi.fn();
  page = render(
    <PairResponse
      params={{ category, displayMs: 1000 }}
      stimulus={{ stimuliId: 3, sourceA: 'j/a.mp4', sourceB: 'j/b.mp4', reversed: false }}
      index={0}
      total={2}
      training={false}
      strings={strings}
     
      busy={busy}
      onAnswer={onAnswer}
      onReplay={onReplay}
    />,
  );
  return { page, onAnswer, onReplay };
}

describe('pair vote dialog', () => {
  it('confirms the choice with Submit / Modify and submits the final one', async () => {
    const { page: p, onAnswer } = mount(1);
    await click(button(p.container, 'First Image'));
    expect(p.text()).toContain('First Image');
    await click(button(p.container, 'Modify'));
    await click(button(p.container, 'Last Image'));
    expect(onAnswer).not.toHaveBeenCalled();
    await click(button(p.container, 'Submit'));
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith('optionimageB');
  });

  it('asks the page for a replay', async () => {
    const { page: p, onReplay } = mount(4);
    await click(button(p.container, 'Replay Videos'));
    expect(onReplay).toHaveBeenCalledTimes(1);
    expect(p.text()).toContain('First Video');
  });

  it('uses the side-by-side video labels and the French confirmation', async () => {
    const { page: p } = mount(3, fr);
    await click(button(p.container, fr.leftVideos));
    expect(button(p.container, 'Valider')).toBeTruthy();
    expect(button(p.container, 'Modifier')).toBeTruthy();
  });

  it('disables its buttons while the answer is being saved', () => {
    const { page: p } = mount(1, en, true);
    expect([...p.container.querySelectorAll('button')].every((b) => b.disabled)).toBe(true);
  });
});
