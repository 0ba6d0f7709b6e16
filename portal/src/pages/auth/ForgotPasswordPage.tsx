import { FORGOT_PASSWORD_ACCEPTED } from '@exploit-grid/api/contracts/constants';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useState, type FormEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import { AuthCard } from '../../components/auth/AuthCard.tsx';
import { AuthForm } from '../../components/auth/AuthForm.tsx';
import { EmailField } from '../../components/auth/AuthField.tsx';
import { CooldownButton } from '../../components/auth/CooldownButton.tsx';
import { checkForm } from '../../components/auth/fieldErrors.ts';
import { Notice } from '../../components/Notice.tsx';
import { usePageMeta } from '../../components/pageMeta.ts';
import { Stack } from '../../components/Stack.tsx';
import { log } from '../../logging.ts';
import { paths } from '../../routes/paths.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  BACK_TO_LOGIN,
  FORGOT_PASSWORD_SUBTITLE,
  FORGOT_PASSWORD_TITLE,
  SEND_AGAIN,
  SEND_RESET_LINK,
  sendAgainIn,
} from '../../strings/auth.ts';

export type ForgotPasswordPageProps = Record<string, never>;

/**
 * Asks for a reset link. Whatever the answer, even an error, the same neutral confirmation follows: the
 * page never tells whether an account exists (core-app section 8). Under it, 'Send again' counts down while
 * the API would refuse another link to that address (one a minute, known address or not).
 */
export const ForgotPasswordPage = observer(function ForgotPasswordPage(_props: ForgotPasswordPageProps) {
  usePageMeta({ title: FORGOT_PASSWORD_TITLE, noIndex: true });
  const { auth } = useStores();
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [submitting, setSubmitting] = useState(false);
  /** The address the link was asked for, once asked. */
  const [sentTo, setSentTo] = useState<string | null>(null);

  async function send(address: string) {
    setSubmitting(true);
    try {
      await auth.forgotPassword(address);
    } catch (failure) {
      log.warn('Password reset request failed', failure);
    }
    setSubmitting(false);
    setSentTo(address);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    // Busy while the schemas may still be on their way: a second press sends nothing.
    setSubmitting(true);
    const parsed = await checkForm((contracts) => contracts.emailRequest, { email });
    if (!parsed.ok) {
      setSubmitting(false);
      setError(parsed.errors.email ?? parsed.failure);
      return;
    }
    setError(undefined);
    void send(parsed.data.email);
  }

  return (
    <AuthCard title={FORGOT_PASSWORD_TITLE} subtitle={sentTo ? undefined : FORGOT_PASSWORD_SUBTITLE}>
      {sentTo ? (
        <Stack spacing={3}>
          <Notice severity="info" role="status">
            {FORGOT_PASSWORD_ACCEPTED}
          </Notice>
          <CooldownButton
            label={SEND_AGAIN}
            waitingLabel={sendAgainIn}
            until={auth.mailCooldowns.until('reset', sentTo)}
            onClick={() => void send(sentTo)}
            loading={submitting}
          />
        </Stack>
      ) : (
        <AuthForm onSubmit={submit}>
          <EmailField value={email} onChange={setEmail} error={error} />
          <Button type="submit" variant="contained" size="large" fullWidth loading={submitting}>
            {SEND_RESET_LINK}
          </Button>
        </AuthForm>
      )}
      <Typography variant="body2" sx={{ mt: 3, textAlign: 'center' }}>
        <Link component={RouterLink} to={paths.login}>
          {BACK_TO_LOGIN}
        </Link>
      </Typography>
    </AuthCard>
  );
});
