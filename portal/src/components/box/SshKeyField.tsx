import TextField from '@mui/material/TextField';
import { SSH_KEY_HELP, SSH_KEY_LABEL } from '../../strings/box.ts';

export type SshKeyFieldProps = {
  value: string;
  error: string | null;
  onChange: (value: string) => void;
};

/** The optional SSH public key of a new box (its own chunk: most players never open it). */
export function SshKeyField({ value, error, onChange }: SshKeyFieldProps) {
  return (
    <TextField
      label={SSH_KEY_LABEL}
      value={value}
      onChange={(event) => onChange(event.target.value)}
      multiline
      minRows={2}
      fullWidth
      error={error !== null}
      helperText={error ?? SSH_KEY_HELP}
      slotProps={{ htmlInput: { spellCheck: false, style: { fontFamily: 'monospace' } } }}
    />
  );
}
