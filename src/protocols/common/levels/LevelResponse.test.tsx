// @vitest-environment jsdom
import { act, useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PlaylistStimulus } from '../../../contract/playlist.js';
import { en, type Strings } from '../../../web/i18n/en.js';
import { fr } from '../../../web/i18n/fr.js';
import { button, click, render, type Rendered } from '../../../web/testing/renderDom.js';
import { ACCEPTABILITY_SCALE } from '../../accann/scale.js';
import { acrScale } from '../../acr/scale.js';
import { IMPAIRMENT_SCALE } from '../../dsis/scale.js';
import { LevelResponse } from './LevelResponse.js';
import { AUTO_SUBMIT_MS, type LevelScale } from './levels.js';
import { stimulusOf } from './testSupport.js';

let view: Rendered | undefined;
let onAnswer: ReturnType<typeof vi.fn<(value: number) => void>>;

beforeEach(() => {
  onAnswer = vi.fn<(value: number) => void>();
});
afterEach(() => {
  view?.unmount();
  view = undefined;
  vi.useRealTimers();
});

function show(scale: LevelScale, opts: { strings?: Strings; training?: boolean; stimulus?: PlaylistStimulus; busy?: boolean } = {}) {
  view = render(
    <LevelResponse
      params={{ scale }}
      stimulus={opts.stimulus ?? stimulusOf({ source: 'job/a.png' })}
      index={0}
      total={3}
      training={opts.training ?? false}
      strings={opts.strings ?? en}
     
      busy={opts.busy ?? false}
      onAnswer={onAnswer}
      onReplay={() => {}}
    />,
  );
  return view;
}

const buttonLabels = (v: Rendered) => [...v.container.querySelectorAll('button')].map((b) => b.textContent);
const advance = (ms: number) => act(() => vi.advanceTimersByTime(ms));

describe('level dialog', () => {
  it('shows the five ACR levels best first, in English and in French', () => {
    expect(buttonLabels(show(acrScale(false)))).toEqual(['Excellent', 'Good', 'Fair', 'Poor', 'Bad']);
    view!.unmount();
    expect(buttonLabels(show(acrScale(false), { strings: fr }))).toEqual(['Excellente', 'Bonne', 'Assez bonne', 'Médiocre', 'Mauvaise']);
  });

  it('confirms a picked level with Submit / Modify and submits its value', async () => {
    const v = show(acrScale(false));
    await click(button(v.container, 'Poor'));
    expect(v.container.querySelector('.vote-choice')?.textContent).toBe('Poor');
    expect(buttonLabels(v)).toEqual(['Submit', 'Modify']);
    await click(button(v.container, 'Submit'));
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith(3);
  });

  it('Modify clears the choice and shows the levels again', async () => {
    const v = show(IMPAIRMENT_SCALE, { strings: fr });
    await click(button(v.container, 'Gênante'));
    expect(buttonLabels(v)).toEqual(['Valider', 'Modifier']);
    await click(button(v.container, 'Modifier'));
    expect(buttonLabels(v)).toHaveLength(5);
    expect(onAnswer).not.toHaveBeenCalled();
  });

  it('auto-submits the picked level 5000 ms after the pick, once', async () => {
    vi.useFakeTimers();
    const v = show(acrScale(true));
    await click(button(v.container, 'Fair'));
    advance(AUTO_SUBMIT_MS - 1);
    expect(onAnswer).not.toHaveBeenCalled();
    advance(1);
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith(2);
    advance(20_000);
    expect(onAnswer).toHaveBeenCalledTimes(1);
    expect(AUTO_SUBMIT_MS).toBe(5000);
  });

  it('does not auto-submit without a pick, after Modify, or once the dialog is closed', async () => {
    vi.useFakeTimers();
    const v = show(acrScale(false));
    advance(60_000);
    await click(button(v.container, 'Good'));
    advance(3000);
    await click(button(v.container, 'Modify'));
    advance(60_000);
    expect(onAnswer).not.toHaveBeenCalled();
    // A new pick starts a new 5 s wait.
    await click(button(v.container, 'Bad'));
    advance(4000);
    expect(onAnswer).not.toHaveBeenCalled();
    advance(1000);
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith(4);

    onAnswer.mockClear();
    v.unmount();
    const again = show(acrScale(false));
    await click(button(again.container, 'Excellent'));
    again.unmount();
    view = undefined;
    advance(60_000);
    expect(onAnswer).not.toHaveBeenCalled();
  });

  it('waits while a post is in flight, and submits again 5 s after a failed post', async () => {
    vi.useFakeTimers();
    let setBusy: (busy: boolean) => void = () => {};
    function Page() {
      const [busy, set] = useState(false);
      setBusy = set;
      return (
        <LevelResponse params={{ scale: acrScale(false) }} stimulus={stimulusOf({ source: 'a.png' })} index={0} total={1}
          training={false} strings={en} busy={busy} onAnswer={onAnswer} onReplay={() => {}} />
      );
    }
    view = render(<Page />);
    await click(button(view.container, 'Good'));
    await click(button(view.container, 'Submit'));
    act(() => setBusy(true)); // the page posts the rating
    expect([...view.container.querySelectorAll('button')].every((b) => b.disabled)).toBe(true);
    advance(60_000);
    expect(onAnswer).toHaveBeenCalledTimes(1);
    act(() => setBusy(false)); // the post failed: the choice stays, the wait starts again
    expect(view.container.querySelector('.vote-choice')?.textContent).toBe('Good');
    advance(AUTO_SUBMIT_MS);
    expect(onAnswer.mock.calls).toEqual([[1], [1]]);
  });

  it('paints the ACR levels green, orange and red in coloured mode only', () => {
    const classes = (v: Rendered) => [...v.container.querySelectorAll('button')].map((b) => b.className);
    expect(classes(show(acrScale(true)))).toEqual(['level level-green', 'level level-green', 'level level-orange', 'level level-red', 'level level-red']);
    view!.unmount();
    expect(classes(show(acrScale(false)))).toEqual(Array(5).fill('level'));
  });

  it('draws the acceptability scale as two levels: acceptable (two labels) and not acceptable', () => {
    const v = show(ACCEPTABILITY_SCALE);
    const groups = [...v.container.querySelectorAll('.level-group')].map((g) => [...g.querySelectorAll('button')].map((b) => b.textContent));
    expect(groups).toEqual([['Not Annoying', 'Annoying but Acceptable'], ['Not Acceptable']]);
    view!.unmount();
    expect(buttonLabels(show(ACCEPTABILITY_SCALE, { strings: fr }))).toEqual(['Pas Gênante', 'Gênante mais Acceptable', 'Pas Acceptable']);
  });
});

describe('level dialog in training', () => {
  it("shows the example's reference score and 'Next scoring example', and never auto-submits", async () => {
    vi.useFakeTimers();
    const v = show(IMPAIRMENT_SCALE, { training: true, stimulus: stimulusOf({ sourceA: 'r.png', sourceB: 'i.png', value: 2 }) });
    expect(v.container.querySelector('#training-reference')?.textContent).toBe('Score of this example: Annoying');
    expect(v.container.querySelector('.level-reference')?.textContent).toBe('Annoying');
    expect(buttonLabels(v)).toEqual(['Next scoring example']);
    advance(60_000);
    expect(onAnswer).not.toHaveBeenCalled();
    await click(button(v.container, 'Next scoring example'));
    expect(onAnswer).toHaveBeenCalledTimes(1);
  });

  it("uses the lab wording 'Exemple suivant' and shows a value outside the scale as a number", () => {
    const v = show(IMPAIRMENT_SCALE, { training: true, strings: fr, stimulus: stimulusOf({ value: 4.5 }) });
    expect(buttonLabels(v)).toEqual(['Exemple suivant']);
    expect(v.container.querySelector('#training-reference')?.textContent).toBe('Note de cet exemple : 4.5');
    expect(v.container.querySelector('.level-reference')).toBeNull();
  });
});
