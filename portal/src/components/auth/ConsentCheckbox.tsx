import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';

export type ConsentCheckboxProps = {
  id: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  /** Why the form was refused without it, shown under it. */
  error?: string;
  /** The label; links in it open their pages in a new tab, so the form keeps what was typed. */
  children: ReactNode;
};

/**
 * A box the visitor ticks at sign-up. The browser's own checkbox in the theme's colour: MUI's Checkbox would
 * add its ripple and icons to a page whose JavaScript has a budget (docs/architecture.md).
 */
export function ConsentCheckbox({ id, checked, onChange, error, children }: ConsentCheckboxProps) {
  const errorId = `${id}-error`;
  return (
    <Box>
      <Box
        component="label"
        htmlFor={id}
        sx={{
          display: 'flex',
          gap: 1.25,
          alignItems: 'flex-start',
          cursor: 'pointer',
          typography: 'body2',
          color: 'text.secondary',
        }}
      >
        <Box
          component="input"
          type="checkbox"
          id={id}
          checked={checked}
          onChange={(event) => onChange(event.target.checked)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          sx={{
            width: 18,
            height: 18,
            m: 0,
            mt: '1px',
            flexShrink: 0,
            cursor: 'pointer',
            // The browser draws the box for a dark page (an empty box in the page's colours, not a white one).
            colorScheme: 'dark',
            accentColor: (theme) => theme.palette.primary.main,
          }}
        />
        <span>{children}</span>
      </Box>
      {error && (
        <Typography id={errorId} variant="caption" color="error" sx={{ display: 'block', mt: 0.5, ml: 3.75 }}>
          {error}
        </Typography>
      )}
    </Box>
  );
}
