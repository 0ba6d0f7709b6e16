import { API_BASE, type SocialProvider } from '@exploit-grid/api/contracts/constants';
import GitHub from '@mui/icons-material/GitHub';
import Google from '@mui/icons-material/Google';
import LinkedIn from '@mui/icons-material/LinkedIn';
import Button from '@mui/material/Button';
import Divider from '@mui/material/Divider';
import type { ReactElement } from 'react';
import { OR, providerNames } from '../../strings/auth.ts';
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
};

/**
 * The 'Or' divider and one button per enabled provider. Social sign-in is a browser navigation to the
 * API, which comes back to /login?token=CODE.
 */
export function SocialButtons({ verb, providers }: SocialButtonsProps) {
  if (providers.length === 0) return null;
  return (
    <>
      <Divider sx={{ my: 3, color: 'text.secondary', fontSize: '0.8rem' }}>{OR}</Divider>
      <Stack spacing={1.5}>
        {providers.map((provider) => (
          <Button
            key={provider}
            variant="outlined"
            color="inherit"
            fullWidth
            href={`${API_BASE}/auth/${provider}`}
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
