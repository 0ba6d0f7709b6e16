import { API_BASE, SOCIAL_CONSENT_PARAM, type SocialProvider } from '@exploit-grid/api/contracts/constants';
import GitHub from '@mui/icons-material/GitHub';
import Google from '@mui/icons-material/Google';
import LinkedIn from '@mui/icons-material/LinkedIn';
import Button from '@mui/material/Button';
import Divider from '@mui/material/Divider';
import Typography from '@mui/material/Typography';
import type { ReactElement } from 'react';
import { OR, SOCIAL_NEEDS_CONSENT, providerNames } from '../../strings/auth.ts';
import { Stack } from '../Stack.tsx';

const icons: Record<SocialProvider, ReactElement> = {
  google: <Google />,
  github: <GitHub />,
  linkedin: <LinkedIn />,
};

export type SocialButtonsProps = {
  /** 'Continue with' (login) or 'Sign up with' (signup). */
  verb: string;
  /** Only the providers the API has enabled; nothing (not even the divider) without any. */
  providers: readonly SocialProvider[];
  /**
   * The sign-up page's consent (13 or older, the terms accepted): without it the buttons are disabled, with it
   * it goes with the sign-in, which may then create an account. Absent on the login page: a sign-in there
   * creates no account (the API sends a new one to /signup).
   */
  consent?: boolean;
};

/**
 * The 'Or' divider and one button per enabled provider. Social sign-in is a browser navigation to the
 * API, which comes back to /login?token=CODE.
 */
export function SocialButtons({ verb, providers, consent }: SocialButtonsProps) {
  if (providers.length === 0) return null;
  const query = consent ? `?${SOCIAL_CONSENT_PARAM}=true` : '';
  return (
    <>
      <Divider sx={{ my: 3, color: 'text.secondary', fontSize: '0.8rem' }}>{OR}</Divider>
      <Stack spacing={1.5}>
        {consent === false && (
          <Typography variant="body2" color="text.secondary" sx={{ textAlign: 'center' }}>
            {SOCIAL_NEEDS_CONSENT}
          </Typography>
        )}
        {providers.map((provider) => (
          <Button
            key={provider}
            variant="outlined"
            color="inherit"
            fullWidth
            disabled={consent === false}
            href={consent === false ? undefined : `${API_BASE}/auth/${provider}${query}`}
            startIcon={icons[provider]}
            sx={{ borderColor: 'divider', justifyContent: 'center' }}
          >
            {`${verb} ${providerNames[provider]}`}
          </Button>
        ))}
      </Stack>
    </>
  );
}
