import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import type { GridStore } from '../../stores/GridStore.ts';
import { LOCATION_UNKNOWN, NO_OPERATORS, OPERATORS_ONLINE, YOU, mmrLabel } from '../../strings/grid.ts';
import { GridCard } from './GridCard.tsx';

export type PlayerListProps = { grid: GridStore };

/** Operators online as a list: the way in without WebGL, and for those whose place is unknown. */
export const PlayerList = observer(function PlayerList({ grid }: PlayerListProps) {
  const players = grid.onlinePlayers;
  return (
    <GridCard title={`${OPERATORS_ONLINE} (${players.length})`}>
      {players.length <= 1 && players.every((p) => p.id === grid.me) ? (
        <Typography variant="body2" color="text.secondary">
          {NO_OPERATORS}
        </Typography>
      ) : null}
      <List dense disablePadding sx={{ maxHeight: 220, overflowY: 'auto' }} aria-label={OPERATORS_ONLINE}>
        {players.map((player) => (
          <ListItemButton
            key={player.id}
            selected={grid.selection?.playerId === player.id}
            onClick={() => grid.select(player.id)}
          >
            <ListItemText
              primary={player.id === grid.me ? `${player.handle} (${YOU})` : player.handle}
              secondary={`${mmrLabel(player.mmr)} · ${player.country ?? LOCATION_UNKNOWN}`}
            />
          </ListItemButton>
        ))}
      </List>
    </GridCard>
  );
});
