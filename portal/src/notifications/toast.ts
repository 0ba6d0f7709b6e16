import { enqueueSnackbar } from 'notistack';
import { TOAST_SUCCESS_MS } from '../strings/site.ts';

/**
 * Toasts from anywhere (stores included). Durations follow core-app section 9: the provider's
 * 4000 ms default for plain, error and info toasts, 2000 ms for success.
 */
export const toast = {
  show(message: string) {
    enqueueSnackbar(message, { variant: 'default' });
  },
  info(message: string) {
    enqueueSnackbar(message, { variant: 'info' });
  },
  success(message: string) {
    enqueueSnackbar(message, { variant: 'success', autoHideDuration: TOAST_SUCCESS_MS });
  },
  error(message: string) {
    enqueueSnackbar(message, { variant: 'error' });
  },
};
