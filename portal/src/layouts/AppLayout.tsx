import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Drawer from '@mui/material/Drawer';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import { observer } from 'mobx-react-lite';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Outlet, ScrollRestoration, useLocation, useNavigate } from 'react-router';
import { isUnauthorized } from '../api/ApiError.ts';
import { HelpMenu } from '../components/HelpMenu.tsx';
import { PulsingLogo } from '../components/PulsingLogo.tsx';
import { SIDEBAR_WIDTH, Sidebar } from '../components/shell/Sidebar.tsx';
import { TopBar } from '../components/shell/TopBar.tsx';
import { log } from '../logging.ts';
import { paths } from '../routes/paths.ts';
import { useStores } from '../stores/StoresContext.tsx';
import {
  LOADING_USER,
  RETRY,
  SIDEBAR_LABEL,
  USER_LOAD_FAILED,
  unpaddedPathPrefixes,
} from '../strings/appShell.ts';

export type AppLayoutProps = Record<string, never>;

/**
 * The signed-in shell (core-app section 2, "App layout"). Without a token it sends the visitor to /login,
 * remembering the page for after login. On entry it loads the current user (pulsing logo until then) and
 * opens the realtime connections, closed again on leave. Only a 401 for the user (the session is over: the
 * client's refresh was refused or did not help) logs out; when the grid cannot be reached (5xx, offline,
 * throttled) the session stays and the layout offers to try again.
 *
 * Below the tablet breakpoint (`md`) the sidebar is a drawer that the top bar's menu button opens and any
 * navigation closes; below `lg` the status folds into one button (its words in a popover).
 */
export const AppLayout = observer(function AppLayout(_props: AppLayoutProps) {
  const { auth, realtime, ui, box } = useStores();
  const navigate = useNavigate();
  const { pathname, search } = useLocation();
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down('md'), { noSsr: true });
  const narrow = useMediaQuery(theme.breakpoints.down('lg'), { noSsr: true });
  const drawerId = useId();
  const signedIn = auth.accessToken !== null;
  // Only a visit that starts signed out is remembered; a logout or an ended session decides for itself.
  const enteredAt = useRef(signedIn ? null : pathname + search);

  useEffect(() => {
    if (signedIn) return;
    if (enteredAt.current) auth.rememberRedirect(enteredAt.current);
    void navigate(paths.login, { replace: true });
  }, [auth, navigate, signedIn]);

  // The last attempt to load the user failed for a reason other than the session.
  const [unreachable, setUnreachable] = useState(false);

  const loadUser = useCallback(() => {
    setUnreachable(false);
    auth.loadUser().catch(async (error: unknown) => {
      log.warn('Could not load the current user', error);
      if (!isUnauthorized(error)) {
        setUnreachable(true);
        return;
      }
      // An ended session may already be logging out (the client's refresh was refused): join it.
      if (auth.accessToken !== null) await auth.logout();
      void navigate(paths.login, { replace: true });
    });
  }, [auth, navigate]);

  useEffect(() => {
    if (signedIn) loadUser();
  }, [loadUser, signedIn]);

  useEffect(() => {
    realtime.start();
    return () => realtime.stop();
  }, [realtime]);

  // The box's state belongs to the top bar's status on every page: loaded once the user is; sockets follow it.
  const userReady = signedIn && auth.userStatus === 'ready';
  useEffect(() => {
    if (userReady) void box.load();
  }, [box, userReady]);

  // Following a link (or going back) closes the drawer.
  useEffect(() => {
    ui.setNavDrawerOpen(false);
  }, [ui, pathname]);

  if (signedIn && unreachable && auth.userStatus === 'failed') {
    return (
      <Box
        component="main"
        sx={{
          minHeight: '100vh',
          display: 'grid',
          placeItems: 'center',
          bgcolor: 'background.default',
          p: 2,
        }}
      >
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={loadUser}>
              {RETRY}
            </Button>
          }
        >
          {USER_LOAD_FAILED}
        </Alert>
      </Box>
    );
  }
  if (!signedIn || !auth.user || auth.userStatus !== 'ready') return <PulsingLogo label={LOADING_USER} />;

  const padded = !unpaddedPathPrefixes.some((prefix) => pathname.startsWith(prefix));
  return (
    <Box sx={{ display: 'flex', minHeight: '100vh', bgcolor: 'background.default', color: 'text.primary' }}>
      {phone ? (
        <Drawer
          id={drawerId}
          variant="temporary"
          open={ui.navDrawerOpen}
          onClose={() => ui.setNavDrawerOpen(false)}
          slotProps={{
            paper: {
              'aria-label': SIDEBAR_LABEL,
              sx: { width: SIDEBAR_WIDTH, maxWidth: '85vw', bgcolor: 'transparent' },
            },
          }}
        >
          <Sidebar variant="drawer" />
        </Drawer>
      ) : (
        <Sidebar />
      )}
      <Box sx={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column' }}>
        <TopBar
          user={auth.user}
          compact={narrow}
          showMenu={phone}
          sidebarCollapsed={ui.sidebarCollapsed}
          navOpen={ui.navDrawerOpen}
          onOpenNav={() => ui.setNavDrawerOpen(true)}
          navId={drawerId}
        />
        <Box
          component="main"
          data-testid="app-content"
          data-padded={padded}
          sx={{ flex: 1, minWidth: 0, position: 'relative', p: padded ? { xs: 2, md: 3 } : 0 }}
        >
          <Outlet />
        </Box>
      </Box>
      <HelpMenu />
      <ScrollRestoration />
    </Box>
  );
});
