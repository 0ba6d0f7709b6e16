import { enqueueSnackbar, SnackbarProvider } from 'notistack';
import { useEffect } from 'react';
import { TOAST_DEFAULT_MS, TOAST_MAX } from '../strings/site.ts';
import { toasterGone, toasterReady } from './toast.ts';

/**
 * The toasts' container: at most 20, top right, 4000 ms unless the toast says otherwise (success passes
 * 2000 ms: `toast.ts`). A chunk of its own, mounted by `ToastHost` with the first toast.
 */
export default function Toaster() {
  useEffect(() => {
    toasterReady(enqueueSnackbar);
    return toasterGone;
  }, []);
  return (
    <SnackbarProvider
      maxSnack={TOAST_MAX}
      autoHideDuration={TOAST_DEFAULT_MS}
      anchorOrigin={{ vertical: 'top', horizontal: 'right' }}
    />
  );
}
