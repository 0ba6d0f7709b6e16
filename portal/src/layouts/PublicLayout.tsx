import Box from '@mui/material/Box';
import { useEffect, useRef, useState } from 'react';
import { Navigate, Outlet, ScrollRestoration, useLocation } from 'react-router';
import { HelpMenu } from '../components/HelpMenu.tsx';
import { paths } from '../routes/paths.ts';
import { hasStoredSession } from '../stores/storedSession.ts';

export type PublicLayoutProps = Record<string, never>;

/** Pages a signed-in visitor has no use for: they go to their dashboard instead. */
const signedOutOnly: ReadonlySet<string> = new Set([paths.home, paths.login, paths.signup]);

/**
 * Dark background, page content and the help menu (shown once mounted). Toasts live at the root. A signed-in
 * visitor of the home, login or sign-up page goes to the dashboard, unless the address carries something
 * for the login page to do (a social sign-in's code, the result of a verification link). That is decided on
 * arrival at a page: the login page taking the code out of the address bar does not send the visitor away.
 */
export function PublicLayout(_props: PublicLayoutProps) {
  const { pathname, search } = useLocation();
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  const arrival = useRef<{ pathname: string; away: boolean } | null>(null);
  if (arrival.current?.pathname !== pathname) {
    const params = new URLSearchParams(search);
    const away =
      hasStoredSession() && signedOutOnly.has(pathname) && !params.has('token') && !params.has('verified');
    arrival.current = { pathname, away };
  }
  if (arrival.current.away) return <Navigate to={paths.dashboard} replace />;
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
