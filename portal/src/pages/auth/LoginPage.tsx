import { EMAIL_NOT_VERIFIED, VERIFY_REASON_EXPIRED_OR_INVALID } from '@exploit-grid/api/contracts/constants';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { lazy, Suspense, useEffect, useState, type FormEvent } from 'react';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';
import { ApiError, serverMessageOf } from '../../api/ApiError.ts';
import { AuthCard } from '../../components/auth/AuthCard.tsx';
import { AuthForm } from '../../components/auth/AuthForm.tsx';
import { AuthField, EmailField } from '../../components/auth/AuthField.tsx';
import { checkForm } from '../../components/auth/fieldErrors.ts';
import { SocialSignIn } from '../../components/auth/SocialSignIn.tsx';
import { Notice } from '../../components/Notice.tsx';
import { usePageMeta } from '../../components/pageMeta.ts';
import { Stack } from '../../components/Stack.tsx';
import { toast } from '../../notifications/toast.ts';
import { paths } from '../../routes/paths.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  ALREADY_SIGNED_IN,
  CONTINUE_WITH,
  EMAIL_NOT_VERIFIED_NOTICE,
  EXCHANGING_SOCIAL_TOKEN,
  FORGOT_PASSWORD_LINK,
  LOGIN_FAILED_DEFAULT,
  LOGIN_SUBTITLE,
  LOGIN_TITLE,
  LOG_IN,
  NO_ACCOUNT,
  PASSWORD_LABEL,
  SIGNUP_LINK,
  SOCIAL_LOGIN_FAILED,
  SOCIAL_TOKEN_INVALID,
  VERIFIED_OK,
  VERIFY_EXPIRED_OR_INVALID,
  VERIFY_UNKNOWN_ANOMALY,
  alreadySignedInAs,
  loginFailed,
} from '../../strings/auth.ts';

const SwitchAccountDialog = lazy(() => import('../../components/auth/SwitchAccountDialog.tsx'));

export type LoginPageProps = Record<string, never>;

type VerificationNotice = { severity: 'success' | 'error'; text: string };

/** What the email verification redirect (`verified`, `reason`) says, if it came here. */
function verificationNotice(params: URLSearchParams): VerificationNotice | null {
  const verified = params.get('verified');
  if (verified === 'true') return { severity: 'success', text: VERIFIED_OK };
  if (verified === 'false') {
    const expired = params.get('reason') === VERIFY_REASON_EXPIRED_OR_INVALID;
    return { severity: 'error', text: expired ? VERIFY_EXPIRED_OR_INVALID : VERIFY_UNKNOWN_ANOMALY };
  }
  return null;
}

/**
 * Email and password, social sign-in for the enabled providers, and the landing of social sign-in
 * (`?token=CODE`) and email verification (`?verified=...`). The one-time code of a social sign-in is read
 * once and leaves the address bar at once; when this browser is signed in already, the code is exchanged
 * (switching accounts) only once the operator confirms.
 */
export const LoginPage = observer(function LoginPage(_props: LoginPageProps) {
  usePageMeta({ title: LOGIN_TITLE, noIndex: true });
  const { auth } = useStores();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const codeInAddress = params.has('token');
  const [socialCode, setSocialCode] = useState(() => params.get('token'));
  const [confirmingSwitch, setConfirmingSwitch] = useState(
    () => Boolean(params.get('token')) && auth.accessToken !== null,
  );
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  useEffect(() => {
    void auth.loadProviders();
  }, [auth]);

  useEffect(() => {
    if (!codeInAddress) return;
    // Single-use and as good as a password until then: out of the address bar and the history entry.
    setParams(
      (current) => {
        current.delete('token');
        return current;
      },
      { replace: true },
    );
  }, [codeInAddress, setParams]);

  useEffect(() => {
    if (!socialCode || confirmingSwitch) return;
    let active = true;
    auth.exchangeSocialCode(socialCode).then(
      () => {
        if (active) void navigate(auth.takeRedirect() ?? paths.dashboard, { replace: true });
      },
      (error: unknown) => {
        if (!active) return;
        setFailure(
          error instanceof ApiError && error.status === 401 ? SOCIAL_TOKEN_INVALID : SOCIAL_LOGIN_FAILED,
        );
      },
    );
    return () => {
      active = false;
    };
  }, [auth, navigate, socialCode, confirmingSwitch]);

  function staySignedIn() {
    setConfirmingSwitch(false);
    setSocialCode(null);
    void navigate(paths.dashboard, { replace: true });
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    setSubmitting(true);
    const parsed = await checkForm((contracts) => contracts.loginRequest, { email, password });
    if (!parsed.ok) {
      setSubmitting(false);
      setErrors(parsed.errors);
      setFailure(parsed.failure ?? null);
      return;
    }
    setErrors({});
    try {
      await auth.login(parsed.data.email, parsed.data.password);
      void navigate(auth.takeRedirect() ?? paths.dashboard, { replace: true });
    } catch (error) {
      setSubmitting(false);
      const message = serverMessageOf(error);
      if (message === EMAIL_NOT_VERIFIED) {
        toast.info(EMAIL_NOT_VERIFIED_NOTICE);
        void navigate(paths.awaitingVerification, { state: { email: parsed.data.email } });
        return;
      }
      setFailure(message ? loginFailed(message) : LOGIN_FAILED_DEFAULT);
    }
  }

  const notice = verificationNotice(params);
  return (
    <AuthCard title={LOGIN_TITLE} subtitle={LOGIN_SUBTITLE}>
      {confirmingSwitch && (
        <Suspense>
          <SwitchAccountDialog
            text={auth.user ? alreadySignedInAs(auth.user.handle) : ALREADY_SIGNED_IN}
            onStay={staySignedIn}
            onSwitch={() => setConfirmingSwitch(false)}
          />
        </Suspense>
      )}
      {socialCode && !failure && !confirmingSwitch ? (
        <Stack direction="row" spacing={2} role="status" sx={{ alignItems: 'center', py: 2 }}>
          <CircularProgress size={24} />
          <Typography>{EXCHANGING_SOCIAL_TOKEN}</Typography>
        </Stack>
      ) : (
        <>
          {notice && (
            <Notice severity={notice.severity} sx={{ mb: 2 }}>
              {notice.text}
            </Notice>
          )}
          <AuthForm onSubmit={submit} failure={failure}>
            <EmailField value={email} onChange={setEmail} error={errors.email} />
            <AuthField
              label={PASSWORD_LABEL}
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={setPassword}
              error={errors.password}
            />
            <Link
              component={RouterLink}
              to={paths.forgotPassword}
              variant="body2"
              sx={{ alignSelf: 'flex-end' }}
            >
              {FORGOT_PASSWORD_LINK}
            </Link>
            <Button type="submit" variant="contained" size="large" fullWidth loading={submitting}>
              {LOG_IN}
            </Button>
          </AuthForm>
          <SocialSignIn verb={CONTINUE_WITH} providers={auth.providers} />
          <Typography variant="body2" color="text.secondary" sx={{ mt: 3, textAlign: 'center' }}>
            {NO_ACCOUNT}{' '}
            <Link component={RouterLink} to={paths.signup}>
              {SIGNUP_LINK}
            </Link>
          </Typography>
        </>
      )}
    </AuthCard>
  );
});
