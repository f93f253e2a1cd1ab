// @vitest-environment jsdom
import { act } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { parseQuery } from '../flow/query.js';
import { createGlimpseStore } from '../flow/store.js';
import { StoreProvider } from '../flow/StoreContext.js';
import { render, type Rendered } from '../testing/renderDom.js';
import { OrientationDialog } from './OrientationDialog.js';
import { pairComparison } from '../../protocols/pair/index.js';

let page: Rendered | undefined;
afterEach(() => page?.unmount());

function setWindow(width: number, height: number) {
  Object.defineProperty(window, 'innerWidth', { value: width, configurable: true });
  Object.defineProperty(window, 'innerHeight', { value: height, configurable: true });
}

function mount(search: string) {
  const store = createGlimpseStore({ jobId: 'j', protocol: pairComparison, query: parseQuery(search) });
  page = render(
    <StoreProvider store={store}>
      <OrientationDialog />
    </StoreProvider>,
  );
  return page;
}

describe('phone orientation dialog', () => {
  it('asks a vertical phone experiment held horizontally to turn, and goes when it is turned', () => {
    setWindow(800, 400);
    const p = mount('?phone=1&vl=1');
    expect(p.text()).toBe('Please hold your phone vertically (portrait orientation) to continue.');
    expect(p.container.querySelector('button')).toBeNull(); // no close action
    act(() => {
      setWindow(400, 800);
      window.dispatchEvent(new Event('resize'));
    });
    expect(p.text()).toBe('');
  });

  it('asks a horizontal phone experiment held vertically to turn', () => {
    setWindow(400, 800);
    expect(mount('?phone=1&hz=1').text()).toBe('Please hold your phone horizontally (landscape orientation) to continue.');
  });

  it('says nothing outside phone experiments', () => {
    setWindow(800, 400);
    expect(mount('?vl=1').text()).toBe('');
  });
});
