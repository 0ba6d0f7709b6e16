import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeAll } from 'vitest';
import { loadSignedInStores } from './stores/RootStore.ts';

// The first render of a route imports its lazy page, transformed on demand: on a loaded two-core CI machine that
// can take longer than the default second of `findBy*` and `waitFor`.
configure({ asyncUtilTimeout: 5000 });

// jsdom has no layout engine: scrolling (ScrollRestoration) is a no-op in unit tests.
window.scrollTo = () => undefined;

// Tests use any store of a fresh RootStore at once; the app loads the store groups with the pages using them.
// In a hook, not at the top: the test file's module mocks (vi.mock of toasts, ...) then apply to the stores too.
beforeAll(() => loadSignedInStores());

afterEach(() => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
});
