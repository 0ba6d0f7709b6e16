import type { FormEvent, ReactNode } from 'react';
import { preloadContracts } from '../../api/contracts.ts';
import { Notice } from '../Notice.tsx';
import { Stack } from '../Stack.tsx';

export type AuthFormProps = {
  onSubmit: (event: FormEvent) => unknown;
  /** Why the last submit failed, shown above the fields. */
  failure?: string | null;
  children: ReactNode;
};

/**
 * The form of the account pages, with why its last submit failed above the fields: the browser's own checks
 * off (the API's schemas check it, `checkForm`), and the download of those schemas started as soon as the
 * visitor types or presses, so that they are here by the time the form is sent.
 */
export function AuthForm({ onSubmit, failure, children }: AuthFormProps) {
  return (
    <Stack
      component="form"
      noValidate
      spacing={2.5}
      onSubmit={onSubmit}
      onInput={preloadContracts}
      onPointerDown={preloadContracts}
    >
      {failure && <Notice severity="error">{failure}</Notice>}
      {children}
    </Stack>
  );
}
