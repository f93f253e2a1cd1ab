import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { GlimpseState, GlimpseStore } from './store.js';

const StoreContext = createContext<GlimpseStore | null>(null);

export function StoreProvider({ store, children }: { store: GlimpseStore; children: ReactNode }) {
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

export function useGlimpseStore(): GlimpseStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useGlimpseStore outside <StoreProvider>');
  return store;
}

/** Subscribe to one slice of the page state (re-renders only when the selected value changes). */
export function useGlimpse<T>(selector: (state: GlimpseState) => T): T {
  return useStore(useGlimpseStore(), selector);
}
