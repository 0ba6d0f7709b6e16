import { SOCIAL_CONSENT_REQUIRED_REASON } from '@exploit-grid/api/contracts/constants';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useEffect, useState, type FormEvent } from 'react';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';
import { serverMessageOf } from '../../api/ApiError.ts';
import { AuthCard } from '../../components/auth/AuthCard.tsx';
import { AuthForm } from '../../components/auth/AuthForm.tsx';
import { AuthField, EmailField } from '../../components/auth/AuthField.tsx';
import { ConsentCheckbox } from '../../components/auth/ConsentCheckbox.tsx';
import { checkForm, serverFieldError } from '../../components/auth/fieldErrors.ts';
import { SocialSignIn } from '../../components/auth/SocialSignIn.tsx';
import { Notice } from '../../components/Notice.tsx';
import { usePageMeta } from '../../components/pageMeta.ts';
import { paths } from '../../routes/paths.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  AGE_CONFIRM_LABEL,
  HANDLE_LABEL,
  HAVE_ACCOUNT,
  LOGIN_LINK,
  PASSWORD_LABEL,
  PRIVACY_LINK,
  REGISTRATION_FAILED_DEFAULT,
  SIGNUP_SUBTITLE,
  SIGNUP_TITLE,
  SIGN_UP,
  SIGN_UP_WITH,
  SOCIAL_CONSENT_REQUIRED,
  TERMS_ACCEPT_BEFORE,
  TERMS_ACCEPT_BETWEEN,
  TERMS_LINK,
  registrationFailed,
} from '../../strings/auth.ts';

export type SignupPageProps = Record<string, never>;

/**
 * Email, handle and password, and the visitor's consent: 13 or older, the Terms of Service and the Privacy
 * Policy accepted (the API refuses a sign-up without both; social sign-up buttons wait for both). Campaign
 * parameters (utm_source, utm_medium, utm_campaign) and the referral code (ref) of the address travel with the
 * signup, as empty strings when absent.
 */
export const SignupPage = observer(function SignupPage(_props: SignupPageProps) {
  usePageMeta({ title: SIGNUP_TITLE, noIndex: true });
  const { auth } = useStores();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [email, setEmail] = useState('');
  const [handle, setHandle] = useState('');
  const [password, setPassword] = useState('');
  const [ageConfirmed, setAgeConfirmed] = useState(false);
  const [termsAccepted, setTermsAccepted] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  useEffect(() => {
    void auth.loadProviders();
  }, [auth]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    setSubmitting(true);
    const parsed = await checkForm((contracts) => contracts.signupRequest, {
      handle,
      email,
      password,
      utmSource: params.get('utm_source') ?? '',
      utmMedium: params.get('utm_medium') ?? '',
      utmCampaign: params.get('utm_campaign') ?? '',
      referralCode: params.get('ref') ?? '',
      ageConfirmed,
      termsAccepted,
    });
    if (!parsed.ok) {
      setSubmitting(false);
      setErrors(parsed.errors);
      setFailure(parsed.failure ?? null);
      return;
    }
    setErrors({});
    try {
      await auth.signup(parsed.data);
      void navigate(paths.awaitingVerification, { state: { email: parsed.data.email } });
    } catch (error) {
      setSubmitting(false);
      // A field the API refused (a password easy to guess): the reason goes under the field.
      const refused = serverFieldError(error, [
        'email',
        'handle',
        'password',
        'ageConfirmed',
        'termsAccepted',
      ] as const);
      if (refused) {
        setErrors({ [refused.field]: refused.message });
        return;
      }
      const message = serverMessageOf(error);
      setFailure(message ? registrationFailed(message) : REGISTRATION_FAILED_DEFAULT);
    }
  }

  return (
    <AuthCard title={SIGNUP_TITLE} subtitle={SIGNUP_SUBTITLE}>
      {params.get('reason') === SOCIAL_CONSENT_REQUIRED_REASON && (
        <Notice severity="info" sx={{ mb: 2 }}>
          {SOCIAL_CONSENT_REQUIRED}
        </Notice>
      )}
      <AuthForm onSubmit={submit} failure={failure}>
        <EmailField value={email} onChange={setEmail} error={errors.email} />
        <AuthField
          label={HANDLE_LABEL}
          autoComplete="username"
          value={handle}
          onChange={setHandle}
          error={errors.handle}
        />
        <AuthField
          label={PASSWORD_LABEL}
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={setPassword}
          error={errors.password}
        />
        <ConsentCheckbox
          id="signup-age"
          checked={ageConfirmed}
          onChange={setAgeConfirmed}
          error={errors.ageConfirmed}
        >
          {AGE_CONFIRM_LABEL}
        </ConsentCheckbox>
        <ConsentCheckbox
          id="signup-terms"
          checked={termsAccepted}
          onChange={setTermsAccepted}
          error={errors.termsAccepted}
        >
          {TERMS_ACCEPT_BEFORE}{' '}
          <Link href={paths.termsOfService} target="_blank" rel="noopener">
            {TERMS_LINK}
          </Link>{' '}
          {TERMS_ACCEPT_BETWEEN}{' '}
          <Link href={paths.privacyPolicy} target="_blank" rel="noopener">
            {PRIVACY_LINK}
          </Link>
          .
        </ConsentCheckbox>
        <Button type="submit" variant="contained" size="large" fullWidth loading={submitting}>
          {SIGN_UP}
        </Button>
      </AuthForm>
      <SocialSignIn verb={SIGN_UP_WITH} providers={auth.providers} consent={ageConfirmed && termsAccepted} />
      <Typography variant="body2" color="text.secondary" sx={{ mt: 3, textAlign: 'center' }}>
        {HAVE_ACCOUNT}{' '}
        <Link component={RouterLink} to={paths.login}>
          {LOGIN_LINK}
        </Link>
      </Typography>
    </AuthCard>
  );
});
