import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useState } from 'react';
import { Navigate, Link as RouterLink, useLocation } from 'react-router';
import { serverMessageOf } from '../../api/ApiError.ts';
import { AuthCard } from '../../components/auth/AuthCard.tsx';
import { CooldownButton } from '../../components/auth/CooldownButton.tsx';
import { Notice } from '../../components/Notice.tsx';
import { usePageMeta } from '../../components/pageMeta.ts';
import { Stack } from '../../components/Stack.tsx';
import { toast } from '../../notifications/toast.ts';
import { paths } from '../../routes/paths.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  AWAITING_TITLE,
  BACK_TO_LOGIN,
  RESEND,
  RESEND_OK,
  RESEND_PROMPT,
  awaitingText,
  resendFailed,
  resendIn,
} from '../../strings/auth.ts';

export type AwaitingVerificationPageProps = Record<string, never>;

/** The email arrives in the navigation state (from signup or a refused login). */
function emailOf(state: unknown): string | null {
  const email = typeof state === 'object' && state !== null && 'email' in state ? state.email : null;
  return typeof email === 'string' && email.length > 0 ? email : null;
}

/**
 * After signup: check your inbox, or send the link again. Without an email, back to /signup. Resend counts
 * down while the API would refuse another link: after the sign-up's mail, a resend, or a 429.
 */
export const AwaitingVerificationPage = observer(function AwaitingVerificationPage(
  _props: AwaitingVerificationPageProps,
) {
  usePageMeta({ title: AWAITING_TITLE });
  const { auth } = useStores();
  const email = emailOf(useLocation().state);
  const [sending, setSending] = useState(false);

  if (email === null) return <Navigate to={paths.signup} replace />;
  const address = email;

  async function resend() {
    setSending(true);
    try {
      await auth.resendVerification(address);
      toast.success(RESEND_OK);
    } catch (error) {
      toast.error(resendFailed(serverMessageOf(error)));
    }
    setSending(false);
  }

  return (
    <AuthCard title={AWAITING_TITLE}>
      <Stack spacing={3}>
        <Notice severity="info" icon={false} sx={{ wordBreak: 'break-word' }}>
          {awaitingText(email)}
        </Notice>
        <Typography color="text.secondary">{RESEND_PROMPT}</Typography>
        <CooldownButton
          label={RESEND}
          waitingLabel={resendIn}
          until={auth.mailCooldowns.until('verify', email)}
          onClick={resend}
          loading={sending}
        />
        <Typography variant="body2" sx={{ textAlign: 'center' }}>
          <Link component={RouterLink} to={paths.login}>
            {BACK_TO_LOGIN}
          </Link>
        </Typography>
      </Stack>
    </AuthCard>
  );
});
