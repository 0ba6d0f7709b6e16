import type { OptionsObject } from 'notistack';
import { TOAST_SUCCESS_MS } from '../strings/site.ts';

/** How long a toast stays when the spec sets it (the match-found toast's 8 s, the queue toasts). */
export type ToastOptions = { durationMs?: number };

type Enqueue = (message: string, options: OptionsObject) => unknown;

/**
 * The toasts' code (notistack, about 6 kB compressed) loads with the first toast, not with every page:
 * `ToastHost` mounts the toaster when asked, and the toasts asked for until then are shown once it is up.
 */
let enqueue: Enqueue | null = null;
const waiting: { message: string; options: OptionsObject }[] = [];
let wanted = false;
const listeners = new Set<() => void>();

function show(message: string, options: OptionsObject): void {
  if (enqueue) {
    enqueue(message, options);
    return;
  }
  waiting.push({ message, options });
  if (!wanted) {
    wanted = true;
    for (const listener of listeners) listener();
  }
}

/** Whether a toast has been asked for, so that `ToastHost` mounts the toaster (useSyncExternalStore). */
export const toasterWanted = {
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  get: (): boolean => wanted,
};

/** Called by the mounted toaster: shows what waited, in order, and every toast from then on at once. */
export function toasterReady(enqueueSnackbar: Enqueue): void {
  enqueue = enqueueSnackbar;
  for (const { message, options } of waiting.splice(0)) enqueueSnackbar(message, options);
}

/** Called when the toaster unmounts (tests render the app many times): toasts wait for the next one. */
export function toasterGone(): void {
  enqueue = null;
}

/**
 * Toasts from anywhere (stores included). Durations follow core-app section 9: the provider's
 * 4000 ms default for plain, error and info toasts, 2000 ms for success, unless a toast sets its own.
 */
export const toast = {
  show(message: string, options: ToastOptions = {}) {
    show(message, { variant: 'default', ...duration(options.durationMs) });
  },
  info(message: string, options: ToastOptions = {}) {
    show(message, { variant: 'info', ...duration(options.durationMs) });
  },
  success(message: string, options: ToastOptions = {}) {
    show(message, { variant: 'success', ...duration(options.durationMs ?? TOAST_SUCCESS_MS) });
  },
  error(message: string, options: ToastOptions = {}) {
    show(message, { variant: 'error', ...duration(options.durationMs) });
  },
};

/** The provider's default unless a duration is given. */
const duration = (ms: number | undefined) => (ms === undefined ? {} : { autoHideDuration: ms });
