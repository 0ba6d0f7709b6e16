import '@fontsource/jetbrains-mono/400.css';
import '@fontsource/jetbrains-mono/700.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { AppProviders } from './AppProviders.tsx';
import { createRouter } from './routes/router.tsx';
import { RootStore } from './stores/RootStore.ts';

const store = new RootStore();
const router = createRouter();
store.attachRouter(router);

/**
 * A prerendered page (prerender.tsx) stays as the server sent it until its route's code has loaded: rendering
 * at once would replace it with the loading logo, then with the same page again.
 */
function routeLoaded(): Promise<void> {
  if (router.state.initialized) return Promise.resolve();
  return new Promise((resolve) => {
    const stop = router.subscribe((state) => {
      if (!state.initialized) return;
      stop();
      resolve();
    });
  });
}

const root = document.getElementById('root')!;
const render = () =>
  createRoot(root).render(
    <StrictMode>
      <AppProviders store={store}>
        <RouterProvider router={router} />
      </AppProviders>
    </StrictMode>,
  );
if (root.hasAttribute('data-prerendered')) void routeLoaded().then(render);
else render();
