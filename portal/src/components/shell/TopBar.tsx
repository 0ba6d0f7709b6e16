import Menu from '@mui/icons-material/Menu';
import AppBar from '@mui/material/AppBar';
import Avatar from '@mui/material/Avatar';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Toolbar from '@mui/material/Toolbar';
import Typography from '@mui/material/Typography';
import type { User } from '@exploit-grid/api/contracts';
import { OPEN_NAVIGATION } from '../../strings/appShell.ts';
import { Stack } from '../Stack.tsx';
import { StatusBar } from './StatusBar.tsx';

export type TopBarProps = {
  user: User;
  /** The status folds into one button of lights (narrow screens). */
  compact: boolean;
  /** Below the tablet breakpoint: a menu button opens the navigation drawer. */
  showMenu: boolean;
  sidebarCollapsed: boolean;
  navOpen: boolean;
  onOpenNav: () => void;
  /** The drawer's id, for the menu button's aria-controls. */
  navId: string;
};

/** The bar above the content: who is signed in (tier, MMR) and, at its right, the player's status. */
export function TopBar({
  user,
  compact,
  showMenu,
  sidebarCollapsed,
  navOpen,
  onOpenNav,
  navId,
}: TopBarProps) {
  return (
    <AppBar
      position="sticky"
      elevation={0}
      color="transparent"
      sx={{
        borderBottom: 1,
        borderColor: 'divider',
        bgcolor: 'rgba(5, 7, 13, 0.8)',
        backdropFilter: 'blur(8px)',
      }}
    >
      <Toolbar variant="dense" sx={{ minHeight: 56, gap: { xs: 1, sm: 2 }, px: { xs: 1, sm: 2 } }}>
        {showMenu && (
          <IconButton
            edge="start"
            onClick={onOpenNav}
            aria-label={OPEN_NAVIGATION}
            aria-controls={navId}
            aria-expanded={navOpen}
            sx={{ ml: 0 }}
          >
            <Menu />
          </IconButton>
        )}
        <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', minWidth: 0, flex: 1 }}>
          <Avatar
            sx={{
              width: 30,
              height: 30,
              bgcolor: 'rgba(0, 229, 255, 0.15)',
              color: 'primary.main',
              fontSize: 14,
              display: { xs: 'none', sm: 'flex' },
            }}
          >
            {user.handle.slice(0, 1).toUpperCase()}
          </Avatar>
          <Typography noWrap sx={{ fontFamily: 'monospace', fontWeight: 700, minWidth: 0 }}>
            {user.handle}
          </Typography>
          <Chip size="small" label={user.subscription.tier} color="primary" variant="outlined" />
          <Typography
            variant="body2"
            color="text.secondary"
            noWrap
            sx={{ display: { xs: 'none', sm: 'block' } }}
          >
            MMR {user.mmr}
          </Typography>
        </Stack>
        <Box sx={{ flex: 'none' }}>
          <StatusBar compact={compact} sidebarCollapsed={sidebarCollapsed} />
        </Box>
      </Toolbar>
    </AppBar>
  );
}
