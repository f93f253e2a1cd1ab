/**
 * Minimal helpers for component tests under vitest's jsdom environment (add `// @vitest-environment jsdom`
 * at the top of the test file): render with React's act(), type into inputs and click like a user would.
 */
import { act, type ReactElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export interface Rendered {
  container: HTMLElement;
  unmount(): void;
  /** Visible text of the rendered tree, whitespace collapsed. */
  text(): string;
}

export function render(element: ReactElement): Rendered {
  const container = document.createElement('div');
  document.body.appendChild(container);
  let root: Root | undefined;
  act(() => {
    root = createRoot(container);
    root.render(element);
  });
  return {
    container,
    unmount: () => {
      act(() => root?.unmount());
      container.remove();
    },
    text: () => (container.textContent ?? '').replace(/\s+/g, ' ').trim(),
  };
}

/** Sets an input's value the way typing does, so React's onChange fires. */
export async function type(input: Element | null, value: string): Promise<void> {
  if (!(input instanceof HTMLInputElement)) throw new Error(`not an input: ${String(input)}`);
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
  await act(async () => {
    setter.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

export async function click(element: Element | null): Promise<void> {
  if (!(element instanceof HTMLElement)) throw new Error(`not an element: ${String(element)}`);
  await act(async () => {
    element.click();
  });
}

/** The button whose text is exactly `label`. */
export function button(container: HTMLElement, label: string): HTMLButtonElement {
  const found = [...container.querySelectorAll('button')].find((b) => b.textContent?.trim() === label);
  if (!found) throw new Error(`no button "${label}" in: ${container.textContent}`);
  return found;
}

/** Lets pending promises (e.g. WebCrypto, network answers) settle inside act(). */
export async function settle(ms = 0): Promise<void> {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, ms));
  });
}
