import Dns from '@mui/icons-material/DnsOutlined';
import Public from '@mui/icons-material/PublicOutlined';
import VpnKey from '@mui/icons-material/VpnKeyOutlined';
import Box from '@mui/material/Box';
import ButtonBase from '@mui/material/ButtonBase';
import Link from '@mui/material/Link';
import Popover from '@mui/material/Popover';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useId, useState, type ReactElement } from 'react';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../routes/paths.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  BOX_HINT,
  BOX_LABEL,
  BOX_STATE_TEXT,
  GRID_DOWN_HINT,
  GRID_LABEL,
  OFF_THE_GRID,
  ON_THE_GRID,
  STATUS_LABEL,
  VPN_DOWN,
  VPN_DOWN_HINT,
  VPN_LABEL,
  VPN_UP,
  statusSummary,
  type BoxState,
} from '../../strings/appShell.ts';
import { Stack } from '../Stack.tsx';
import { ConnectionBadge } from './ConnectionBadge.tsx';

type Tone = 'ok' | 'busy' | 'down';
const toneColor: Record<Tone, string> = { ok: 'success.main', busy: 'warning.main', down: 'error.main' };

type Status = {
  key: 'grid' | 'vpn' | 'box';
  label: string;
  icon: ReactElement;
  text: string;
  tone: Tone;
  /** What to do about it, when something is not up. */
  hint?: string;
  /** Where that is done. */
  to?: string;
};

const boxTone: Record<BoxState, Tone> = {
  RUNNING: 'ok',
  PROVISIONING: 'busy',
  STOPPED: 'down',
  CRASHED: 'down',
  NONE: 'down',
};

/** The three statuses of a signed-in player, each on its own: grid connection, VPN tunnel, box. */
function useStatuses(): Status[] {
  const { realtime, auth } = useStores();
  const boxState: BoxState = auth.box?.status ?? 'NONE';
  return [
    {
      key: 'grid',
      label: GRID_LABEL,
      icon: <Public fontSize="inherit" />,
      text: realtime.connected ? ON_THE_GRID : OFF_THE_GRID,
      tone: realtime.connected ? 'ok' : 'down',
      hint: realtime.connected ? undefined : GRID_DOWN_HINT,
    },
    {
      key: 'vpn',
      label: VPN_LABEL,
      icon: <VpnKey fontSize="inherit" />,
      text: realtime.vpnConnected ? VPN_UP : VPN_DOWN,
      tone: realtime.vpnConnected ? 'ok' : 'down',
      hint: realtime.vpnConnected ? undefined : VPN_DOWN_HINT,
      to: paths.box,
    },
    {
      key: 'box',
      label: BOX_LABEL,
      icon: <Dns fontSize="inherit" />,
      text: BOX_STATE_TEXT[boxState],
      tone: boxTone[boxState],
      hint: BOX_HINT[boxState],
      to: paths.box,
    },
  ];
}

export type StatusBarProps = {
  /** Phones and small tablets: one button with three lights, the words in a popover. */
  compact: boolean;
  /** The sidebar is collapsed: the grid badge reads 'EG' (core-app section 2). */
  sidebarCollapsed: boolean;
};

/**
 * One place for the player's state, in the top bar: the grid connection (the spec's 'On the Grid' badge), the
 * VPN tunnel and the box, never one standing in for another. Each that is not up says what to do next.
 */
export const StatusBar = observer(function StatusBar({ compact, sidebarCollapsed }: StatusBarProps) {
  const statuses = useStatuses();
  const { realtime } = useStores();
  const summary = statusSummary(statuses.map((s) => s.text));
  if (compact) return <CompactStatus statuses={statuses} summary={summary} />;
  return (
    <Stack
      direction="row"
      spacing={1}
      role="group"
      aria-label={STATUS_LABEL}
      data-testid="status-bar"
      sx={{ alignItems: 'center', flex: 'none' }}
    >
      <ConnectionBadge connected={realtime.connected} compact={sidebarCollapsed} />
      {statuses
        .filter((s) => s.key !== 'grid')
        .map((s) => (
          <StatusPill key={s.key} status={s} />
        ))}
    </Stack>
  );
});

const pillSx = {
  display: 'inline-flex',
  alignItems: 'center',
  gap: 0.75,
  px: 1.25,
  py: 0.5,
  borderRadius: 999,
  border: 1,
  borderColor: 'divider',
  color: 'text.primary',
  fontSize: '0.8rem',
  whiteSpace: 'nowrap',
  textDecoration: 'none',
  '&:hover': { borderColor: 'text.secondary' },
} as const;

function Light({ tone }: { tone: Tone }) {
  return (
    <Box
      component="span"
      aria-hidden
      sx={{ width: 8, height: 8, borderRadius: '50%', flex: 'none', bgcolor: toneColor[tone] }}
    />
  );
}

/** The VPN or the box: a link to My Box, its hint as the title. */
function StatusPill({ status }: { status: Status }) {
  return (
    <Box
      component={RouterLink}
      to={status.to ?? paths.box}
      data-testid={`status-${status.key}`}
      data-tone={status.tone}
      title={status.hint}
      sx={pillSx}
    >
      <Light tone={status.tone} />
      {status.text}
    </Box>
  );
}

/** Phones: three lights on one button; the popover says each status in words and what to do next. */
function CompactStatus({ statuses, summary }: { statuses: Status[]; summary: string }) {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const popoverId = useId();
  const grid = statuses[0]!;
  return (
    <>
      <ButtonBase
        aria-label={summary}
        aria-haspopup="dialog"
        aria-expanded={anchor !== null}
        aria-controls={anchor ? popoverId : undefined}
        data-testid="status-bar"
        onClick={(event) => setAnchor(event.currentTarget)}
        sx={{ ...pillSx, gap: 1, minHeight: 36, px: 1.25 }}
      >
        {statuses.map((s) => (
          <Box
            key={s.key}
            component="span"
            data-testid={s.key === 'grid' ? 'connection-badge' : `status-${s.key}`}
            data-connected={s.key === 'grid' ? grid.tone === 'ok' : undefined}
            data-tone={s.tone}
            sx={{
              display: 'inline-flex',
              alignItems: 'center',
              gap: 0.5,
              fontSize: 16,
              color: toneColor[s.tone],
            }}
          >
            {s.icon}
            <Light tone={s.tone} />
          </Box>
        ))}
      </ButtonBase>
      <Popover
        id={popoverId}
        open={anchor !== null}
        anchorEl={anchor}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
        slotProps={{ paper: { role: 'dialog', 'aria-label': STATUS_LABEL, sx: { p: 2, maxWidth: 320 } } }}
      >
        <Stack spacing={1.5}>
          {statuses.map((s) => (
            <Stack key={s.key} direction="row" spacing={1.25} sx={{ alignItems: 'flex-start' }}>
              <Box sx={{ mt: 0.75 }}>
                <Light tone={s.tone} />
              </Box>
              <Box>
                <Typography variant="body2" sx={{ fontWeight: 700 }}>
                  {s.text}
                </Typography>
                {s.hint &&
                  (s.to ? (
                    <Link
                      component={RouterLink}
                      to={s.to}
                      variant="caption"
                      onClick={() => setAnchor(null)}
                      sx={{ display: 'block' }}
                    >
                      {s.hint}
                    </Link>
                  ) : (
                    <Typography variant="caption" color="text.secondary" sx={{ display: 'block' }}>
                      {s.hint}
                    </Typography>
                  ))}
              </Box>
            </Stack>
          ))}
        </Stack>
      </Popover>
    </>
  );
}
