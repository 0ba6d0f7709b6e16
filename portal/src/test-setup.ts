import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// The first render of a route imports its lazy page, transformed on demand: on a loaded two-core CI machine that
// can take longer than the default second of `findBy*` and `waitFor`.
configure({ asyncUtilTimeout: 5000 });

// jsdom has no layout engine: scrolling (ScrollRestoration) is a no-op in unit tests.
window.scrollTo = () => undefined;

afterEach(() => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
});
