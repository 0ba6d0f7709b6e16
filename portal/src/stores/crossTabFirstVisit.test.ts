import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as ContractsLoader from '../api/contracts.ts';
import { fakeApi, testBox, testUser } from '../testing/fakeApi.ts';
import { fakeSockets } from '../testing/fakeSockets.ts';
import { AUTH_STORAGE_KEY } from './AuthStore.ts';
import { RootStore } from './RootStore.ts';

/** The schemas' download, held back while `held` (a public page's first visit: nothing has asked yet). */
const schemas = vi.hoisted(() => ({ held: false, release: [] as (() => void)[] }));

vi.mock('../api/contracts.ts', async (importOriginal) => {
  const original = await importOriginal<typeof ContractsLoader>();
  return {
    ...original,
    loadedContracts: () => (schemas.held ? null : original.loadedContracts()),
    loadContracts: async () => {
      if (schemas.held) await new Promise<void>((resolve) => schemas.release.push(resolve));
      return original.loadContracts();
    },
  };
});

const tabs: RootStore[] = [];
afterEach(() => {
  for (const tab of tabs.splice(0)) tab.dispose();
  schemas.held = false;
});

function openTab() {
  const store = new RootStore({ socketFactory: fakeSockets().factory, locks: null });
  void store.auth;
  tabs.push(store);
  return store;
}

const saved = () => JSON.parse(localStorage.getItem(AUTH_STORAGE_KEY) ?? 'null') as unknown;

describe('a tab on a public page, before the schemas are here, and another tab that signs in', () => {
  it('takes the session once the schemas are here, and never writes its user and box back as nothing', async () => {
    fakeApi();
    schemas.held = true;
    const publicTab = openTab();
    const session = { version: 2, state: { accessToken: 'token-7', user: testUser, box: testBox } };
    localStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify(session));
    window.dispatchEvent(new StorageEvent('storage', { key: AUTH_STORAGE_KEY, storageArea: localStorage }));

    // Nothing is read without the schemas: the other tab's save stays as it was.
    expect(publicTab.auth.accessToken).toBeNull();
    expect(saved()).toEqual(session);

    schemas.held = false;
    for (const release of schemas.release.splice(0)) release();
    await vi.waitFor(() => expect(publicTab.auth.accessToken).toBe('token-7'));
    expect(publicTab.auth.user).toEqual(testUser);
    expect(publicTab.auth.box).toEqual(testBox);
    expect(saved()).toEqual(session);
  });
});
