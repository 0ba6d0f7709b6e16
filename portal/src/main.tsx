import '@fontsource/jetbrains-mono/400.css';
import '@fontsource/jetbrains-mono/700.css';
import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import { SnackbarProvider } from 'notistack';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { createRouter } from './routes/router.tsx';
import { RootStore } from './stores/RootStore.ts';
import { StoresProvider } from './stores/StoresContext.tsx';
import { TOAST_DEFAULT_MS, TOAST_MAX } from './strings/site.ts';
import { theme } from './theme/theme.ts';

const store = new RootStore();
const router = createRouter();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <StoresProvider store={store}>
      <ThemeProvider theme={theme}>
        <CssBaseline />
        <SnackbarProvider
          maxSnack={TOAST_MAX}
          autoHideDuration={TOAST_DEFAULT_MS}
          anchorOrigin={{ vertical: 'top', horizontal: 'right' }}
        >
          <RouterProvider router={router} />
        </SnackbarProvider>
      </ThemeProvider>
    </StoresProvider>
  </StrictMode>,
);
