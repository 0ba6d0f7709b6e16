import { useCallback, useEffect, useRef, useState } from 'react';
import { log } from '../../logging.ts';
import { toast } from '../../notifications/toast.ts';
import { COPIED_INDICATOR_MS, COPY_FAILED } from '../../strings/box.ts';

/**
 * Copies text to the clipboard and remembers which value was copied for 2 s (the 'copied' indicator of
 * core-app sections 2 and 9); `failure` is toasted when the clipboard refuses. A later copy replaces the
 * indicator and restarts its time.
 */
export function useCopied(failure = COPY_FAILED, duration = COPIED_INDICATOR_MS) {
  const [copied, setCopied] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(
    () => () => {
      if (timer.current !== null) clearTimeout(timer.current);
    },
    [],
  );

  const copy = useCallback(
    async (key: string, text: string) => {
      try {
        await navigator.clipboard.writeText(text);
      } catch (error) {
        log.warn('Could not copy to the clipboard', error);
        toast.error(failure);
        return;
      }
      if (timer.current !== null) clearTimeout(timer.current);
      setCopied(key);
      timer.current = setTimeout(() => {
        timer.current = null;
        setCopied(null);
      }, duration);
    },
    [duration, failure],
  );

  return { copied, copy };
}
