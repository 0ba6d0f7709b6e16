import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import type { GridStore } from '../../stores/GridStore.ts';
import { ACCEPT, DECLINE, PVP_INCOMING_TITLE, pvpIncoming } from '../../strings/grid.ts';
import { Stack } from '../Stack.tsx';
import { GridCard } from './GridCard.tsx';

export type PvpPromptsProps = { grid: GridStore };

/** Open PVP challenges to this operator, each for 30 s (core-app sections 4 and 9). */
export const PvpPrompts = observer(function PvpPrompts({ grid }: PvpPromptsProps) {
  // Always there, so that a screen reader announces a challenge as it arrives.
  return (
    <Stack spacing={1} aria-live="assertive">
      {grid.pvpPrompts.map((prompt) => (
        <GridCard key={prompt.requester.id} title={PVP_INCOMING_TITLE} tone="error">
          <Typography variant="body2">
            {pvpIncoming(prompt.requester.handle, prompt.requester.mmr)}
          </Typography>
          <Stack direction="row" spacing={1} sx={{ mt: 1.5 }}>
            <Button
              variant="contained"
              color="error"
              size="small"
              onClick={() => grid.answerPvp(prompt.requester.id, true)}
            >
              {ACCEPT}
            </Button>
            <Button size="small" color="inherit" onClick={() => grid.answerPvp(prompt.requester.id, false)}>
              {DECLINE}
            </Button>
          </Stack>
        </GridCard>
      ))}
    </Stack>
  );
});
