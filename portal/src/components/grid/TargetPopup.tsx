import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import CloseIcon from '@mui/icons-material/Close';
import { observer } from 'mobx-react-lite';
import type { GridStore } from '../../stores/GridStore.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  BLOCK,
  CHAT,
  CLOSE,
  LOCATION_UNKNOWN,
  PVP,
  PVP_NEEDS_VPN,
  THIS_IS_YOU,
  UNBLOCK,
  defenseLabel,
  mmrLabel,
  targetPortsLabel,
} from '../../strings/grid.ts';
import { Stack } from '../Stack.tsx';
import { GridCard } from './GridCard.tsx';

export type TargetPopupProps = { grid: GridStore; vpnConnected: boolean };

/**
 * The operator picked on the globe (core-app section 2): handle, MMR, country or 'Location Unknown', Defense %,
 * the ports their box publishes (issue 20: what to look at first),
 * and PVP (needs the VPN and the target info), Chat (a chat request), Block or Unblock.
 */
export const TargetPopup = observer(function TargetPopup({ grid, vpnConnected }: TargetPopupProps) {
  const { chat } = useStores();
  const player = grid.selectedPlayer;
  const selection = grid.selection;
  if (!player || !selection) return null;
  const self = player.id === grid.me;
  const blocked = grid.isBlocked(player.id);
  const info = selection.info;
  const pvpReady = vpnConnected && info !== null && !blocked;
  return (
    <GridCard title={player.handle}>
      <IconButton
        aria-label={CLOSE}
        size="small"
        onClick={() => grid.closeSelection()}
        sx={{ position: 'absolute', top: 8, right: 8 }}
      >
        <CloseIcon fontSize="small" />
      </IconButton>
      <Typography variant="body2">{mmrLabel(player.mmr)}</Typography>
      <Typography variant="body2" color="text.secondary">
        {player.country ?? LOCATION_UNKNOWN}
      </Typography>
      {self ? (
        <Typography variant="body2" sx={{ mt: 1 }}>
          {THIS_IS_YOU}
        </Typography>
      ) : (
        <>
          <Typography variant="body2" data-testid="target-defense">
            {defenseLabel(info ? info.defense : null)}
          </Typography>
          {info && (
            <Typography
              variant="body2"
              color="text.secondary"
              data-testid="target-ports"
              sx={{ fontFamily: 'monospace', fontSize: '0.8rem', wordBreak: 'break-word' }}
            >
              {targetPortsLabel(info.ports ?? [])}
            </Typography>
          )}
          <Stack direction="row" spacing={1} sx={{ mt: 1.5 }}>
            <Tooltip title={vpnConnected ? '' : PVP_NEEDS_VPN}>
              <span>
                <Button
                  variant="contained"
                  color="error"
                  size="small"
                  disabled={!pvpReady}
                  onClick={() => grid.challenge(player)}
                >
                  {PVP}
                </Button>
              </span>
            </Tooltip>
            <Button
              variant="outlined"
              size="small"
              disabled={blocked}
              onClick={() => chat.request(player.id)}
            >
              {CHAT}
            </Button>
            <Button
              variant="outlined"
              size="small"
              color="inherit"
              onClick={() => (blocked ? grid.unblock(player.id) : grid.block(player.id))}
            >
              {blocked ? UNBLOCK : BLOCK}
            </Button>
          </Stack>
        </>
      )}
    </GridCard>
  );
});
