import AccountTree from '@mui/icons-material/AccountTreeOutlined';
import Chat from '@mui/icons-material/ChatOutlined';
import ChevronLeft from '@mui/icons-material/ChevronLeft';
import ChevronRight from '@mui/icons-material/ChevronRight';
import Close from '@mui/icons-material/Close';
import Dashboard from '@mui/icons-material/DashboardOutlined';
import Dns from '@mui/icons-material/DnsOutlined';
import GpsFixed from '@mui/icons-material/GpsFixedOutlined';
import Leaderboard from '@mui/icons-material/LeaderboardOutlined';
import Logout from '@mui/icons-material/LogoutOutlined';
import School from '@mui/icons-material/SchoolOutlined';
import Settings from '@mui/icons-material/SettingsOutlined';
import Work from '@mui/icons-material/WorkOutlined';
import WorkspacePremium from '@mui/icons-material/WorkspacePremiumOutlined';
import Box from '@mui/material/Box';
import Divider from '@mui/material/Divider';
import IconButton from '@mui/material/IconButton';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import type { ReactElement } from 'react';
import { Link as RouterLink, useLocation } from 'react-router';
import { paths } from '../../routes/paths.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  CLOSE_NAVIGATION,
  COLLAPSE_SIDEBAR,
  EXPAND_SIDEBAR,
  LOGOUT_LABEL,
  SETTINGS_LABEL,
  SIDEBAR_LABEL,
  navItems,
} from '../../strings/appShell.ts';
import { SITE_NAME } from '../../strings/site.ts';
import { SidebarCredits } from './SidebarCredits.tsx';
import { SidebarNavItem } from './SidebarNavItem.tsx';

/** Expanded 16rem ('w-64'), collapsed 5rem ('w-20') (core-app section 2). */
export const SIDEBAR_WIDTH = '16rem';
export const SIDEBAR_COLLAPSED_WIDTH = '5rem';

const icons: Record<string, ReactElement> = {
  [paths.dashboard]: <Dashboard />,
  [paths.box]: <Dns />,
  [paths.attack]: <GpsFixed />,
  [paths.chats]: <Chat />,
  [paths.history]: <AccountTree />,
  [paths.leaderboard]: <Leaderboard />,
  [paths.plans]: <WorkspacePremium />,
  '/learn': <School />,
  '/jobs': <Work />,
};

export type SidebarProps = {
  /**
   * 'rail' beside the content (tablets and wider; collapses to icons), or 'drawer' over the page on phones:
   * always expanded, closed by its own button, by Escape or by following a link.
   */
  variant?: 'rail' | 'drawer';
};

/** The signed-in navigation: brand, pages, balances, settings and logout; collapses to icons. */
export const Sidebar = observer(function Sidebar({ variant = 'rail' }: SidebarProps) {
  const { ui, auth } = useStores();
  const { pathname } = useLocation();
  const inDrawer = variant === 'drawer';
  const collapsed = !inDrawer && ui.sidebarCollapsed;
  const isActive = (to: string) => pathname === to || pathname.startsWith(`${to}/`);

  return (
    <Box
      component="nav"
      aria-label={SIDEBAR_LABEL}
      data-collapsed={collapsed}
      data-variant={variant}
      sx={{
        width: collapsed ? SIDEBAR_COLLAPSED_WIDTH : SIDEBAR_WIDTH,
        maxWidth: '100%',
        flexShrink: 0,
        position: inDrawer ? 'static' : 'sticky',
        top: 0,
        height: inDrawer ? '100%' : '100vh',
        display: 'flex',
        flexDirection: 'column',
        gap: 1,
        pb: 1.5,
        overflowX: 'hidden',
        overflowY: 'auto',
        bgcolor: 'rgba(11, 17, 32, 0.96)',
        borderRight: 1,
        borderColor: 'divider',
        transition: (theme) =>
          theme.transitions.create('width', { duration: theme.transitions.duration.short }),
      }}
    >
      <Box
        sx={{
          display: 'flex',
          flexDirection: collapsed ? 'column' : 'row',
          alignItems: 'center',
          justifyContent: 'space-between',
          gap: 1,
          px: collapsed ? 0 : 2,
          py: 2,
        }}
      >
        <Box
          component={RouterLink}
          to={paths.dashboard}
          aria-label={SITE_NAME}
          sx={{
            display: 'inline-flex',
            alignItems: 'center',
            gap: 1.25,
            color: 'text.primary',
            textDecoration: 'none',
          }}
        >
          <Box component="img" src="/favicon.svg" alt="" sx={{ width: 30, height: 30 }} />
          {!collapsed && (
            <Typography
              component="span"
              variant="subtitle1"
              sx={{
                fontFamily: 'monospace',
                fontWeight: 700,
                letterSpacing: '0.08em',
                textTransform: 'uppercase',
              }}
            >
              {SITE_NAME}
            </Typography>
          )}
        </Box>
        {inDrawer ? (
          <IconButton
            size="small"
            onClick={() => ui.setNavDrawerOpen(false)}
            aria-label={CLOSE_NAVIGATION}
            sx={{ border: 1, borderColor: 'divider' }}
          >
            <Close fontSize="small" />
          </IconButton>
        ) : (
          <IconButton
            size="small"
            onClick={() => ui.toggleSidebar()}
            aria-label={collapsed ? EXPAND_SIDEBAR : COLLAPSE_SIDEBAR}
            aria-expanded={!collapsed}
            sx={{ border: 1, borderColor: 'divider' }}
          >
            {collapsed ? <ChevronRight fontSize="small" /> : <ChevronLeft fontSize="small" />}
          </IconButton>
        )}
      </Box>

      <List sx={{ flex: 1, py: 0, display: 'flex', flexDirection: 'column', gap: 0.25 }}>
        {navItems.map((item) => (
          <SidebarNavItem
            key={item.to}
            label={item.label}
            to={item.to}
            icon={icons[item.to] ?? <Dashboard />}
            collapsed={collapsed}
            active={isActive(item.to)}
            disabled={item.disabled}
          />
        ))}
      </List>

      <SidebarCredits
        credits={auth.user?.credits}
        freeCredits={auth.user?.freeCredits}
        collapsed={collapsed}
      />
      <Divider sx={{ mx: 1 }} />
      <List sx={{ py: 0, display: 'flex', flexDirection: 'column', gap: 0.25 }}>
        <SidebarNavItem
          label={SETTINGS_LABEL}
          to={paths.settings}
          icon={<Settings />}
          collapsed={collapsed}
          active={isActive(paths.settings)}
        />
        <li>
          <ListItemButton
            onClick={() => void auth.logout()}
            aria-label={LOGOUT_LABEL}
            sx={{
              minHeight: 44,
              borderRadius: 1,
              mx: 1,
              px: 1.5,
              gap: 1.5,
              justifyContent: collapsed ? 'center' : 'flex-start',
              color: 'error.main',
            }}
          >
            <ListItemIcon sx={{ minWidth: 0, color: 'inherit' }}>
              <Logout />
            </ListItemIcon>
            {!collapsed && <ListItemText primary={LOGOUT_LABEL} />}
          </ListItemButton>
        </li>
      </List>
    </Box>
  );
});
