// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../web/i18n/en.js';
import { fr } from '../../web/i18n/fr.js';
import { button, click, render, type Rendered } from '../../web/testing/renderDom.js';
import { AnswerPanel, type AnswerPanelProps } from './AnswerPanel.js';

let view: Rendered | null = null;
afterEach(() => {
  view?.unmount();
  view = null;
});

function panel(overrides: Partial<AnswerPanelProps> = {}) {
  const onNext = vi.fn();
  const props: AnswerPanelProps = {
    strings: en,
    question: 'Which emotion?',
    progress: 'Image 1 / 2',
    training: false,
    expected: null,
    ready: true,
    busy: false,
    imageFailed: false,
    fullscreenMissing: false,
    onNext,
    ...overrides,
  };
  view = render(<AnswerPanel {...props} />);
  return { container: view.container, onNext };
}

const radio = (container: HTMLElement, label: string) =>
  [...container.querySelectorAll('label')].find((l) => l.textContent?.trim() === label)!.querySelector('input')!;

describe('piiface answer panel, test image', () => {
  it('turns the button red and sends nothing without a confidence, then sends both answers', async () => {
    const { container, onNext } = panel();
    const next = button(container, 'Next image');
    expect(next.className).not.toContain('danger');
    await click(radio(container, 'Fear'));
    await click(next);
    expect(onNext).not.toHaveBeenCalled();
    expect(next.className).toBe('danger');
    expect(container.querySelector('#piiface-confidence')!.className).toBe('missing');
    expect(container.querySelector('#piiface-emotion')!.className).toBe('');

    await click(radio(container, 'Very confident'));
    expect(next.className).not.toContain('danger');
    await click(next);
    expect(onNext).toHaveBeenCalledExactlyOnceWith({ emotion: 2, confidence: 0 });
  });

  it('needs the emotion too', async () => {
    const { container, onNext } = panel();
    await click(radio(container, 'Not confident at all'));
    await click(button(container, 'Next image'));
    expect(onNext).not.toHaveBeenCalled();
    expect(button(container, 'Next image').dataset.variant).toBe('danger');
    expect(container.querySelector('#piiface-emotion')!.getAttribute('aria-invalid')).toBe('true');
  });

  it('lists the SPEC radios in order, and hides the button while fullscreen is missing', () => {
    const { container } = panel({ fullscreenMissing: true });
    expect([...container.querySelectorAll('#piiface-emotion label')].map((l) => l.textContent?.trim())).toEqual([
      'Anger',
      'Disgust',
      'Fear',
      'Happiness',
      'Neutral',
      'Sadness',
      'Surprise',
    ]);
    expect([...container.querySelectorAll('#piiface-confidence label')].map((l) => l.textContent?.trim())).toEqual([
      'Very confident',
      'Fairly confident',
      'Somewhat confident',
      'Slightly confident',
      'Not confident at all',
    ]);
    expect(container.querySelector('button')).toBeNull();
    expect(container.textContent).toContain(en.fullscreenRequired);
  });
});

describe('piiface answer panel, training image', () => {
  it('moves on without an answer and tells whether the emotion was the expected one', async () => {
    const { container, onNext } = panel({ training: true, expected: 3 });
    expect(container.querySelector('#piiface-feedback')).toBeNull();
    await click(radio(container, 'Anger'));
    expect(container.querySelector('#piiface-feedback')!.textContent).toBe('Not quite: the expected answer was Happiness.');
    await click(radio(container, 'Happiness'));
    expect(container.querySelector('#piiface-feedback')!.textContent).toBe('Right answer: Happiness.');
    await click(button(container, 'Next image'));
    expect(onNext).toHaveBeenCalledExactlyOnceWith({ emotion: 3, confidence: null });
    expect(button(container, 'Next image').className).not.toContain('danger');
  });

  it('speaks French on the lab platform', async () => {
    const { container } = panel({ strings: fr, training: true, expected: 0 });
    await click(radio(container, 'Colère'));
    expect(container.querySelector('#piiface-feedback')!.textContent).toBe('Bonne réponse : Colère.');
    expect(button(container, 'Image suivante')).toBeTruthy();
  });
});
