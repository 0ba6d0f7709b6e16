import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useCallback } from 'react';
import type { GridStore } from '../../stores/GridStore.ts';
import { outcomeHeadline } from '../history/outcome.ts';
import { UNRATED_RESULT, outcomeDetail } from '../../strings/grid.ts';

export type OutcomeOverlayProps = { grid: GridStore };

/** The win/lose overlay of an attack this operator was in, for 5 s (core-app section 4); a click closes it. */
export const OutcomeOverlay = observer(function OutcomeOverlay({ grid }: OutcomeOverlayProps) {
  const result = grid.attackResult;
  // Focus moves to the overlay so that it is announced and Escape (or a click) closes it.
  const focus = useCallback((element: HTMLElement | null) => element?.focus(), []);
  if (!result) return null;
  const headline = outcomeHeadline(result.outcome, result.won);
  return (
    <Box
      ref={focus}
      role="alertdialog"
      aria-label={headline}
      aria-describedby="outcome-detail"
      tabIndex={-1}
      onClick={() => grid.dismissResult()}
      onKeyDown={(event) => {
        if (event.key === 'Escape' || event.key === 'Enter') grid.dismissResult();
      }}
      sx={{
        position: 'absolute',
        inset: 0,
        zIndex: 5,
        display: 'grid',
        placeItems: 'center',
        bgcolor: result.won ? 'rgba(0, 40, 24, 0.78)' : 'rgba(48, 0, 8, 0.78)',
        cursor: 'pointer',
        outline: 'none',
      }}
    >
      <Box sx={{ textAlign: 'center', px: 2 }}>
        <Typography
          variant="h2"
          component="p"
          sx={{
            fontWeight: 800,
            letterSpacing: '0.08em',
            color: result.won ? 'success.main' : 'error.main',
            fontSize: { xs: '2.2rem', md: '4rem' },
          }}
        >
          {headline}
        </Typography>
        <Typography id="outcome-detail" variant="h6" component="p" color="text.secondary">
          {outcomeDetail(result.outcome, result.won, result.opponent)}
        </Typography>
        {!result.rated && (
          <Typography variant="body1" component="p" color="warning.main" data-testid="outcome-unrated">
            {UNRATED_RESULT}
          </Typography>
        )}
      </Box>
    </Box>
  );
});
