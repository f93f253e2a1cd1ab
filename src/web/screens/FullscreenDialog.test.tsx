// @vitest-environment jsdom
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseQuery } from '../flow/query.js';
import { createGlimpseStore } from '../flow/store.js';
import { StoreProvider } from '../flow/StoreContext.js';
import { button, click, render, type Rendered } from '../testing/renderDom.js';
import { FullscreenDialog } from './FullscreenDialog.js';
import { pairComparison } from '../../protocols/pair/index.js';

let page: Rendered | undefined;
const setOuterHeight = (value: number) => Object.defineProperty(window, 'outerHeight', { value, configurable: true });

beforeEach(() => {
  vi.useFakeTimers();
  Object.defineProperty(window, 'innerHeight', { value: 768, configurable: true });
});
afterEach(() => {
  page?.unmount();
  vi.useRealTimers();
});

function mount() {
  const store = createGlimpseStore({ jobId: 'j', protocol: pairComparison, query: parseQuery('?platform=prolific') });
  page = render(
    <StoreProvider store={store}>
      <FullscreenDialog />
    </StoreProvider>,
  );
  return page;
}

const tick = () => act(() => vi.advanceTimersByTime(500));

describe('fullscreen request dialog', () => {
  it('is shown while the window is not fullscreen, comes back 500 ms after Cancel, and goes once fullscreen', async () => {
    setOuterHeight(900);
    const p = mount();
    expect(p.text()).toContain('This test runs in fullscreen mode.');
    await click(button(p.container, 'Cancel'));
    expect(p.container.querySelector('#fullscreen-dialog')).toBeNull();
    tick();
    expect(p.container.querySelector('#fullscreen-dialog')).not.toBeNull();
    setOuterHeight(770); // inner 768 + 2 px tolerance reaches the outer height: fullscreen (SPEC §5)
    tick();
    expect(p.container.querySelector('#fullscreen-dialog')).toBeNull();
  });

  it('asks the browser for fullscreen on Ok', async () => {
    setOuterHeight(900);
    const request = vi.fn(() => Promise.resolve());
    document.documentElement.requestFullscreen = request;
    const p = mount();
    await click(button(p.container, 'Ok'));
    expect(request).toHaveBeenCalledTimes(1);
  });

  it('is not shown when the page is already fullscreen', () => {
    setOuterHeight(768);
    expect(mount().container.querySelector('#fullscreen-dialog')).toBeNull();
  });
});
