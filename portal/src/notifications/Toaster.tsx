import { styled } from '@mui/material/styles';
import { enqueueSnackbar, MaterialDesignContent, SnackbarProvider } from 'notistack';
import { useEffect } from 'react';
import { TOAST_DEFAULT_MS, TOAST_MAX } from '../strings/site.ts';
import { toasterGone, toasterReady } from './toast.ts';

/**
 * notistack's toast with colours that white text can be read on (WCAG AA, 4.5:1 and more): its own green,
 * orange and blue are too light for it.
 */
const ReadableToast = styled(MaterialDesignContent)({
  '&.notistack-MuiContent-success': { backgroundColor: '#1b5e20' },
  '&.notistack-MuiContent-error': { backgroundColor: '#b71c1c' },
  '&.notistack-MuiContent-warning': { backgroundColor: '#8a4600' },
  '&.notistack-MuiContent-info': { backgroundColor: '#0d47a1' },
});
const toastComponents = {
  default: ReadableToast,
  success: ReadableToast,
  error: ReadableToast,
  warning: ReadableToast,
  info: ReadableToast,
};

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
      Components={toastComponents}
    />
  );
}
