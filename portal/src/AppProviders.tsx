import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import { SnackbarProvider } from 'notistack';
import type { ReactNode } from 'react';
import type { RootStore } from './stores/RootStore.ts';
import { StoresProvider } from './stores/StoresContext.tsx';
import { TOAST_DEFAULT_MS, TOAST_MAX } from './strings/site.ts';
import { theme } from './theme/theme.ts';

export type AppProvidersProps = { store: RootStore; children: ReactNode };

/**
 * Stores, theme and toasts around the router, the same in the app and in tests. Toasts: at most 20, top
 * right, 4000 ms unless the call says otherwise (success passes 2000 ms: `notifications/toast.ts`).
 */
export function AppProviders({ store, children }: AppProvidersProps) {
  return (
    <StoresProvider store={store}>
      <ThemeProvider theme={theme}>
        <CssBaseline />
        <SnackbarProvider
          maxSnack={TOAST_MAX}
          autoHideDuration={TOAST_DEFAULT_MS}
          anchorOrigin={{ vertical: 'top', horizontal: 'right' }}
        >
          {children}
        </SnackbarProvider>
      </ThemeProvider>
    </StoresProvider>
  );
}
