import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import type { GridStore } from '../../stores/GridStore.ts';
import {
  LOCATION_UNKNOWN,
  NO_OPERATORS,
  OPERATORS_ONLINE,
  PLAYER_LIST_MAX,
  YOU,
  mmrLabel,
  moreOnTheGlobe,
} from '../../strings/grid.ts';
import { GridCard } from './GridCard.tsx';

export type PlayerListProps = { grid: GridStore };

/** Operators online as a list: the way in without WebGL, and for those whose place is unknown. */
export const PlayerList = observer(function PlayerList({ grid }: PlayerListProps) {
  const all = grid.onlinePlayers;
  // A list of thousands helps nobody and costs every render: the best by MMR, and the one picked.
  const players = all.slice(0, PLAYER_LIST_MAX);
  const selected = grid.selectedPlayer;
  if (selected && !players.includes(selected)) players.push(selected);
  return (
    <GridCard title={`${OPERATORS_ONLINE} (${all.length})`}>
      {all.length <= 1 && all.every((p) => p.id === grid.me) ? (
        <Typography variant="body2" color="text.secondary">
          {NO_OPERATORS}
        </Typography>
      ) : null}
      <List dense disablePadding sx={{ maxHeight: 220, overflowY: 'auto' }} aria-label={OPERATORS_ONLINE}>
        {players.map((player) => (
          <ListItem key={player.id} disablePadding>
            <ListItemButton
              selected={grid.selection?.playerId === player.id}
              onClick={() => grid.select(player.id)}
            >
              <ListItemText
                primary={player.id === grid.me ? `${player.handle} (${YOU})` : player.handle}
                secondary={`${mmrLabel(player.mmr)} · ${player.country ?? LOCATION_UNKNOWN}`}
              />
            </ListItemButton>
          </ListItem>
        ))}
      </List>
      {all.length > PLAYER_LIST_MAX && (
        <Typography variant="caption" color="text.secondary">
          {moreOnTheGlobe(all.length - PLAYER_LIST_MAX)}
        </Typography>
      )}
    </GridCard>
  );
});
