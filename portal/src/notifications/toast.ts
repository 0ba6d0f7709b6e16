import { enqueueSnackbar } from 'notistack';
import { TOAST_SUCCESS_MS } from '../strings/site.ts';

/** How long a toast stays when the spec sets it (the match-found toast's 8 s, the queue toasts). */
export type ToastOptions = { durationMs?: number };

/**
 * Toasts from anywhere (stores included). Durations follow core-app section 9: the provider's
 * 4000 ms default for plain, error and info toasts, 2000 ms for success, unless a toast sets its own.
 */
export const toast = {
  show(message: string, options: ToastOptions = {}) {
    enqueueSnackbar(message, { variant: 'default', ...duration(options.durationMs) });
  },
  info(message: string, options: ToastOptions = {}) {
    enqueueSnackbar(message, { variant: 'info', ...duration(options.durationMs) });
  },
  success(message: string, options: ToastOptions = {}) {
    enqueueSnackbar(message, { variant: 'success', ...duration(options.durationMs ?? TOAST_SUCCESS_MS) });
  },
  error(message: string, options: ToastOptions = {}) {
    enqueueSnackbar(message, { variant: 'error', ...duration(options.durationMs) });
  },
};

/** The provider's default unless a duration is given. */
const duration = (ms: number | undefined) => (ms === undefined ? {} : { autoHideDuration: ms });
