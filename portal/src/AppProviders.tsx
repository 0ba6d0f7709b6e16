import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import type { ReactNode } from 'react';
import { ToastHost } from './notifications/ToastHost.tsx';
import type { RootStore } from './stores/RootStore.ts';
import { StoresProvider } from './stores/StoresContext.tsx';
import { theme } from './theme/theme.ts';

export type AppProvidersProps = { store: RootStore; children: ReactNode };

/**
 * Stores, theme and toasts around the router, the same in the app and in tests. The toaster mounts with the
 * first toast (`notifications/toast.ts`).
 */
export function AppProviders({ store, children }: AppProvidersProps) {
  return (
    <StoresProvider store={store}>
      <ThemeProvider theme={theme}>
        <CssBaseline />
        {children}
        <ToastHost />
      </ThemeProvider>
    </StoresProvider>
  );
}
