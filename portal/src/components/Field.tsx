import FormControl from '@mui/material/FormControl';
import FormHelperText from '@mui/material/FormHelperText';
import InputLabel from '@mui/material/InputLabel';
import OutlinedInput from '@mui/material/OutlinedInput';
import type { SxProps, Theme } from '@mui/material/styles';
import { useId, type InputHTMLAttributes, type ReactNode } from 'react';

export type FieldProps = {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** Shown under the field: the error when there is one, else this. */
  helperText?: string;
  /** The validation message; marks the field invalid. */
  error?: string;
  type?: 'email' | 'password' | 'text' | 'number';
  autoComplete?: string;
  autoFocus?: boolean;
  disabled?: boolean;
  fullWidth?: boolean;
  /** Shown at the start of the input, inside it ('$'). */
  startAdornment?: ReactNode;
  /** A text area of at least `minRows` rows that grows with its text. */
  multiline?: boolean;
  minRows?: number;
  /** More attributes of the `<input>` (min, max, step, inputMode, maxLength). */
  inputProps?: InputHTMLAttributes<HTMLInputElement>;
  sx?: SxProps<Theme>;
};

/**
 * An outlined text field with its label and message, as MUI's TextField draws it, built from the input's own
 * parts: TextField also brings the Select, Menu and Popover (about 15 kB compressed), which the public pages'
 * budget has no room for (docs/portal.md).
 */
export function Field({
  label,
  value,
  onChange,
  helperText,
  error,
  type = 'text',
  autoComplete,
  autoFocus,
  disabled,
  fullWidth,
  startAdornment,
  inputProps,
  multiline,
  minRows,
  sx,
}: FieldProps) {
  const id = useId();
  const message = error ?? helperText;
  const messageId = message ? `${id}-message` : undefined;
  return (
    <FormControl variant="outlined" fullWidth={fullWidth} error={Boolean(error)} disabled={disabled} sx={sx}>
      <InputLabel htmlFor={id}>{label}</InputLabel>
      <OutlinedInput
        id={id}
        label={label}
        type={type}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        autoComplete={autoComplete}
        autoFocus={autoFocus}
        startAdornment={startAdornment}
        multiline={multiline}
        minRows={minRows}
        inputProps={{ ...inputProps, 'aria-describedby': messageId }}
      />
      {message && <FormHelperText id={messageId}>{message}</FormHelperText>}
    </FormControl>
  );
}
