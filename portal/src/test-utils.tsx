import { ThemeProvider } from '@mui/material/styles';
import { render } from '@testing-library/react';
import { SnackbarProvider } from 'notistack';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { routes } from './routes/router.tsx';
import { RootStore } from './stores/RootStore.ts';
import { StoresProvider } from './stores/StoresContext.tsx';
import { theme } from './theme/theme.ts';

/** Renders the portal's real route table at `path`, with a fresh RootStore. */
export function renderRoute(path: string) {
  const store = new RootStore();
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const result = render(
    <StoresProvider store={store}>
      <ThemeProvider theme={theme}>
        <SnackbarProvider>
          <RouterProvider router={router} />
        </SnackbarProvider>
      </ThemeProvider>
    </StoresProvider>,
  );
  return { ...result, router, store };
}
