import Button, { type ButtonProps } from '@mui/material/Button';
import { useLayoutEffect, useReducer } from 'react';

export type CooldownButtonProps = {
  /** The label while the button can be pressed. */
  label: string;
  /** The label while it waits, from the whole seconds left ('Resend in 42 s'). */
  waitingLabel: (seconds: number) => string;
  /** When the wait ends (epoch ms), or null when there is none. */
  until: number | null;
  onClick: () => void;
  loading?: boolean;
  variant?: ButtonProps['variant'];
};

/** A button for an action the server allows once in a while: disabled, counting down, until it may be pressed. */
export function CooldownButton({
  label,
  waitingLabel,
  until,
  onClick,
  loading,
  variant = 'outlined',
}: CooldownButtonProps) {
  const seconds = useSecondsLeft(until);
  return (
    <Button
      variant={variant}
      size="large"
      fullWidth
      onClick={onClick}
      loading={loading}
      disabled={seconds > 0}
    >
      {seconds > 0 ? waitingLabel(seconds) : label}
    </Button>
  );
}

/** Whole seconds until `until` (0 when past or null); re-renders each time the number changes. */
function useSecondsLeft(until: number | null): number {
  const [, tick] = useReducer((n: number) => n + 1, 0);
  // A layout effect: the timer starts in the same commit that shows the first number, not some time later.
  useLayoutEffect(() => {
    if (until === null) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const schedule = () => {
      const left = until - Date.now();
      if (left <= 0) return;
      // Wake when the shown number changes, not on a drifting one-second interval.
      timer = setTimeout(
        () => {
          tick();
          schedule();
        },
        left % 1000 || 1000,
      );
    };
    schedule();
    return () => clearTimeout(timer);
  }, [until]);
  return until === null ? 0 : Math.max(0, Math.ceil((until - Date.now()) / 1000));
}
