import Box from '@mui/material/Box';
import { useEffect, useState } from 'react';
import { Outlet, ScrollRestoration } from 'react-router';
import { HelpMenu } from '../components/HelpMenu.tsx';

export type PublicLayoutProps = Record<string, never>;

/** Dark background, page content and the help menu (shown once mounted). Toasts live at the root. */
export function PublicLayout(_props: PublicLayoutProps) {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  return (
    <Box
      sx={{
        minHeight: '100vh',
        bgcolor: 'background.default',
        backgroundImage:
          'radial-gradient(ellipse at 50% -20%, rgba(0, 229, 255, 0.12), transparent 60%), linear-gradient(rgba(0, 229, 255, 0.03) 1px, transparent 1px), linear-gradient(90deg, rgba(0, 229, 255, 0.03) 1px, transparent 1px)',
        backgroundSize: '100% 100%, 48px 48px, 48px 48px',
        color: 'text.primary',
      }}
    >
      <Box component="main">
        <Outlet />
      </Box>
      {mounted && <HelpMenu />}
      <ScrollRestoration />
    </Box>
  );
}
