import Box from '@mui/material/Box';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Tooltip from '@mui/material/Tooltip';
import type { ReactElement } from 'react';
import { Link as RouterLink } from 'react-router';
import { COMING_SOON } from '../../strings/appShell.ts';

export type SidebarNavItemProps = {
  label: string;
  to: string;
  icon: ReactElement;
  collapsed: boolean;
  active?: boolean;
  /** Not built yet: greyed out, with the 'Coming soon' tooltip. */
  disabled?: boolean;
};

const itemSx = { minHeight: 44, borderRadius: 1, mx: 1, px: 1.5, gap: 1.5 } as const;

/** One entry of the sidebar: a link, or a disabled 'Coming soon' entry; icon only when collapsed. */
export function SidebarNavItem({
  label,
  to,
  icon,
  collapsed,
  active = false,
  disabled = false,
}: SidebarNavItemProps) {
  const content = (
    <>
      <ListItemIcon sx={{ minWidth: 0, color: active ? 'primary.main' : 'inherit' }}>{icon}</ListItemIcon>
      {!collapsed && <ListItemText primary={label} />}
    </>
  );
  const justify = { justifyContent: collapsed ? 'center' : 'flex-start' };

  if (disabled) {
    return (
      <li>
        <Tooltip title={COMING_SOON} placement="right" describeChild>
          <Box component="span" sx={{ display: 'block' }}>
            <ListItemButton disabled aria-label={label} sx={{ ...itemSx, ...justify }}>
              {content}
            </ListItemButton>
          </Box>
        </Tooltip>
      </li>
    );
  }

  const link = (
    <ListItemButton
      component={RouterLink}
      to={to}
      selected={active}
      aria-label={label}
      aria-current={active ? 'page' : undefined}
      sx={{
        ...itemSx,
        ...justify,
        '&.Mui-selected': { bgcolor: 'rgba(0, 229, 255, 0.1)', color: 'primary.main' },
      }}
    >
      {content}
    </ListItemButton>
  );
  return (
    <li>
      {collapsed ? (
        <Tooltip title={label} placement="right">
          {link}
        </Tooltip>
      ) : (
        link
      )}
    </li>
  );
}
