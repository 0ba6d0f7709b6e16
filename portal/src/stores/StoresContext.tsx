import { createContext, useContext, type ReactNode } from 'react';
import type { RootStore } from './RootStore.ts';

const StoresContext = createContext<RootStore | null>(null);

export type StoresProviderProps = { store: RootStore; children: ReactNode };

export function StoresProvider({ store, children }: StoresProviderProps) {
  return <StoresContext value={store}>{children}</StoresContext>;
}

/** The root store; components observe what they read from it. */
export function useStores(): RootStore {
  const store = useContext(StoresContext);
  if (!store) throw new Error('useStores() used outside <StoresProvider>');
  return store;
}
