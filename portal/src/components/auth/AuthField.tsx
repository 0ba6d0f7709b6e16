import { EMAIL_LABEL } from '../../strings/auth.ts';
import { Field } from '../Field.tsx';

export type AuthFieldProps = {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** The validation message to show under the field, if any. */
  error?: string;
  type?: 'email' | 'password' | 'text';
  autoComplete: string;
  autoFocus?: boolean;
};

/** A full-width field of the account forms, showing its validation message. */
export function AuthField({
  label,
  value,
  onChange,
  error,
  type = 'text',
  autoComplete,
  autoFocus,
}: AuthFieldProps) {
  return (
    <Field
      label={label}
      type={type}
      autoComplete={autoComplete}
      autoFocus={autoFocus}
      fullWidth
      value={value}
      onChange={onChange}
      error={error}
    />
  );
}

/** The email field the account forms open with (focused, the browser's saved address offered). */
export function EmailField(props: Pick<AuthFieldProps, 'value' | 'onChange' | 'error'>) {
  return <AuthField label={EMAIL_LABEL} type="email" autoComplete="email" autoFocus {...props} />;
}
