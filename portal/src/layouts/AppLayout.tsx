import Box from '@mui/material/Box';
import { observer } from 'mobx-react-lite';
import { useEffect, useRef } from 'react';
import { Outlet, ScrollRestoration, useLocation, useNavigate } from 'react-router';
import { HelpMenu } from '../components/HelpMenu.tsx';
import { PulsingLogo } from '../components/PulsingLogo.tsx';
import { ConnectionBadge } from '../components/shell/ConnectionBadge.tsx';
import { Sidebar } from '../components/shell/Sidebar.tsx';
import { TopBar } from '../components/shell/TopBar.tsx';
import { log } from '../logging.ts';
import { paths } from '../routes/paths.ts';
import { useStores } from '../stores/StoresContext.tsx';
import { LOADING_USER, unpaddedPathPrefixes } from '../strings/appShell.ts';

export type AppLayoutProps = Record<string, never>;

/**
 * The signed-in shell (core-app section 2, "App layout"). Without a token it sends the visitor to /login,
 * remembering the page for after login. On entry it loads the current user (pulsing logo until then; a
 * failure logs out) and opens the realtime connections, closed again on leave.
 */
export const AppLayout = observer(function AppLayout(_props: AppLayoutProps) {
  const { auth, realtime, ui } = useStores();
  const navigate = useNavigate();
  const { pathname, search } = useLocation();
  const signedIn = auth.accessToken !== null;
  // Only a visit that starts signed out is remembered; a logout or an ended session decides for itself.
  const enteredAt = useRef(signedIn ? null : pathname + search);

  useEffect(() => {
    if (signedIn) return;
    if (enteredAt.current) auth.rememberRedirect(enteredAt.current);
    void navigate(paths.login, { replace: true });
  }, [auth, navigate, signedIn]);

  useEffect(() => {
    if (!signedIn) return;
    auth.loadUser().catch(async (error: unknown) => {
      log.warn('Could not load the current user', error);
      await auth.logout();
      void navigate(paths.login, { replace: true });
    });
  }, [auth, navigate, signedIn]);

  useEffect(() => {
    realtime.start();
    return () => realtime.stop();
  }, [realtime]);

  if (!signedIn || !auth.user || auth.userStatus !== 'ready') return <PulsingLogo label={LOADING_USER} />;

  const padded = !unpaddedPathPrefixes.some((prefix) => pathname.startsWith(prefix));
  return (
    <Box sx={{ display: 'flex', minHeight: '100vh', bgcolor: 'background.default', color: 'text.primary' }}>
      <Sidebar />
      <Box sx={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column' }}>
        <TopBar user={auth.user} />
        <Box
          component="main"
          data-testid="app-content"
          data-padded={padded}
          sx={{ flex: 1, minWidth: 0, position: 'relative', p: padded ? { xs: 2, md: 3 } : 0 }}
        >
          <Outlet />
        </Box>
      </Box>
      <ConnectionBadge connected={realtime.connected} compact={ui.sidebarCollapsed} />
      <HelpMenu />
      <ScrollRestoration />
    </Box>
  );
});
