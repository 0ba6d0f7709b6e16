import AppBar from '@mui/material/AppBar';
import Avatar from '@mui/material/Avatar';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Toolbar from '@mui/material/Toolbar';
import Typography from '@mui/material/Typography';
import type { User } from '@exploit-grid/api/contracts';

export type TopBarProps = { user: User };

/** The bar above the content: who is signed in, their tier and MMR. The connection badge floats at its right. */
export function TopBar({ user }: TopBarProps) {
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
      <Toolbar variant="dense" sx={{ minHeight: 56, gap: 2, pr: { xs: 20, sm: 24 } }}>
        <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', minWidth: 0 }}>
          <Avatar
            sx={{
              width: 30,
              height: 30,
              bgcolor: 'rgba(0, 229, 255, 0.15)',
              color: 'primary.main',
              fontSize: 14,
            }}
          >
            {user.handle.slice(0, 1).toUpperCase()}
          </Avatar>
          <Typography noWrap sx={{ fontFamily: 'monospace', fontWeight: 700 }}>
            {user.handle}
          </Typography>
          <Chip size="small" label={user.subscription.tier} color="primary" variant="outlined" />
          <Typography variant="body2" color="text.secondary" noWrap>
            MMR {user.mmr}
          </Typography>
        </Stack>
      </Toolbar>
    </AppBar>
  );
}
