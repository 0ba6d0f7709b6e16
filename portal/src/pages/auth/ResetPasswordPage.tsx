import { PASSWORDS_DO_NOT_MATCH } from '@exploit-grid/api/contracts/constants';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';
import { serverMessageOf } from '../../api/ApiError.ts';
import { AuthCard } from '../../components/auth/AuthCard.tsx';
import { AuthForm } from '../../components/auth/AuthForm.tsx';
import { AuthField } from '../../components/auth/AuthField.tsx';
import { checkForm, serverFieldError } from '../../components/auth/fieldErrors.ts';
import { usePageMeta } from '../../components/pageMeta.ts';
import { toast } from '../../notifications/toast.ts';
import { paths } from '../../routes/paths.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  BACK_TO_LOGIN,
  CONFIRM_PASSWORD_LABEL,
  NEW_PASSWORD_LABEL,
  RESET_FAILED_DEFAULT,
  RESET_PASSWORD,
  RESET_PASSWORD_SUBTITLE,
  RESET_PASSWORD_TITLE,
  RESET_TOKEN_MISSING,
} from '../../strings/auth.ts';

export type ResetPasswordPageProps = Record<string, never>;

type Errors = { password?: string; confirm?: string };

/**
 * New password and confirmation for the token of the reset mail (`?token=`); without one, back to /login.
 * The token is read once, when the page opens, and kept here: the address bar and the history entry are
 * replaced by plain /reset-password at once, so the token does not linger where it could be seen, shared
 * or sent as a referrer.
 */
export function ResetPasswordPage(_props: ResetPasswordPageProps) {
  usePageMeta({ title: RESET_PASSWORD_TITLE, noIndex: true });
  const { auth } = useStores();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [token] = useState(() => params.get('token'));
  const tokenInAddress = Boolean(token) && params.has('token');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const announced = useRef(false);

  useEffect(() => {
    if (tokenInAddress) void navigate(paths.resetPassword, { replace: true });
  }, [tokenInAddress, navigate]);

  useEffect(() => {
    // Only a page opened without a token is refused: the token removed from the address above is kept.
    if (token) return;
    // Once, even when React runs effects twice in development.
    if (!announced.current) toast.error(RESET_TOKEN_MISSING);
    announced.current = true;
    void navigate(paths.login, { replace: true });
  }, [token, navigate]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!token) return;
    setFailure(null);
    setSubmitting(true);
    // The password alone is no object: its errors have no field name.
    const length = await checkForm((contracts) => contracts.passwordSchema, password);
    const next: Errors = {};
    if (!length.ok) next.password = length.errors[''];
    else if (password !== confirm) next.confirm = PASSWORDS_DO_NOT_MATCH;
    setErrors(next);
    if (!length.ok && length.failure) setFailure(length.failure);
    if (!length.ok || next.confirm) {
      setSubmitting(false);
      return;
    }
    try {
      const message = await auth.resetPassword(token, password);
      toast.success(message);
      void navigate(paths.login, { replace: true });
    } catch (error) {
      setSubmitting(false);
      // A password the API refused (easy to guess): the reason goes under the field; the link still works.
      const refused = serverFieldError(error, ['password'] as const);
      if (refused) {
        setErrors({ password: refused.message });
        return;
      }
      setFailure(serverMessageOf(error) ?? RESET_FAILED_DEFAULT);
    }
  }

  if (!token) return null;
  return (
    <AuthCard title={RESET_PASSWORD_TITLE} subtitle={RESET_PASSWORD_SUBTITLE}>
      <AuthForm onSubmit={submit} failure={failure}>
        <AuthField
          label={NEW_PASSWORD_LABEL}
          type="password"
          autoComplete="new-password"
          autoFocus
          value={password}
          onChange={setPassword}
          error={errors.password}
        />
        <AuthField
          label={CONFIRM_PASSWORD_LABEL}
          type="password"
          autoComplete="new-password"
          value={confirm}
          onChange={setConfirm}
          error={errors.confirm}
        />
        <Button type="submit" variant="contained" size="large" fullWidth loading={submitting}>
          {RESET_PASSWORD}
        </Button>
      </AuthForm>
      <Typography variant="body2" sx={{ mt: 3, textAlign: 'center' }}>
        <Link component={RouterLink} to={paths.login}>
          {BACK_TO_LOGIN}
        </Link>
      </Typography>
    </AuthCard>
  );
}
