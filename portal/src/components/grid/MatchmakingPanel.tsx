import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import LinearProgress from '@mui/material/LinearProgress';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../routes/paths.ts';
import type { MatchmakingStore } from '../../stores/MatchmakingStore.ts';
import {
  DISMISS,
  ENGAGE,
  FIND_A_MARK,
  FIND_DISABLED,
  FIX_ON_MY_BOX,
  LEAVE_QUEUE,
  MATCH_FOUND_TITLE,
  QUEUE_TITLE,
  WAITING_FOR_OPPONENT,
  matchCountdown,
  matchRole,
  queueEstimate,
  queuePosition,
} from '../../strings/grid.ts';
import { Stack } from '../Stack.tsx';
import { GridCard } from './GridCard.tsx';

export type MatchmakingPanelProps = { matchmaking: MatchmakingStore };

/**
 * Find a Mark, the queue status card and the Match Found card (core-app sections 2 and 4). Find a Mark is
 * disabled while connecting, queued, matched, attacking or attacked, and until the player's box runs and
 * their VPN is connected (what the server requires), with the reason and where to fix it beside it.
 */
export const MatchmakingPanel = observer(function MatchmakingPanel({ matchmaking }: MatchmakingPanelProps) {
  const blocker = matchmaking.queueBlocker;
  const { queue, proposal } = matchmaking;
  const me = matchmaking.me;
  return (
    <Stack spacing={2} sx={{ pointerEvents: 'none' }}>
      <Stack spacing={0.5} sx={{ pointerEvents: 'auto', alignSelf: 'flex-start' }}>
        <Button
          variant="contained"
          size="large"
          disabled={blocker !== null}
          aria-describedby={blocker ? 'find-a-mark-why' : undefined}
          onClick={() => void matchmaking.findMark()}
        >
          {FIND_A_MARK}
        </Button>
        {/* Why it is disabled, for everyone (a tooltip on a disabled button reaches no keyboard). */}
        {blocker && (
          <Typography id="find-a-mark-why" variant="caption" color="text.secondary">
            {FIND_DISABLED[blocker]}{' '}
            {(blocker === 'noBox' || blocker === 'noVpn') && (
              <Link component={RouterLink} to={paths.box}>
                {FIX_ON_MY_BOX}
              </Link>
            )}
          </Typography>
        )}
      </Stack>
      {queue && (
        <GridCard title={QUEUE_TITLE}>
          <LinearProgress sx={{ mb: 1.5 }} aria-label={QUEUE_TITLE} />
          {queue.position > 0 && (
            <Typography variant="body2" color="text.secondary">
              {queuePosition(queue.position)}
            </Typography>
          )}
          <Typography variant="body2" data-testid="queue-estimate">
            {queueEstimate(queue.secondsLeft)}
          </Typography>
          <Button size="small" color="inherit" sx={{ mt: 1 }} onClick={() => void matchmaking.leaveQueue()}>
            {LEAVE_QUEUE}
          </Button>
        </GridCard>
      )}
      {proposal && (
        <GridCard title={MATCH_FOUND_TITLE} tone="warning">
          <Typography variant="h6" component="p">
            {proposal.attacker.id === me ? proposal.defender.handle : proposal.attacker.handle}
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
            {matchRole(proposal.attacker.id === me ? 'attacker' : 'defender')}
          </Typography>
          <Typography variant="body2" data-testid="match-countdown">
            {matchCountdown(matchmaking.proposalSecondsLeft)}
          </Typography>
          {matchmaking.engaged ? (
            <Typography variant="body2" color="warning.main" sx={{ mt: 1 }} role="status">
              {WAITING_FOR_OPPONENT}
            </Typography>
          ) : (
            <Stack direction="row" spacing={1} sx={{ mt: 1.5 }}>
              <Button
                variant="contained"
                color="warning"
                disabled={matchmaking.engaging}
                onClick={() => void matchmaking.engage()}
              >
                {ENGAGE}
              </Button>
              <Button
                color="inherit"
                disabled={matchmaking.engaging}
                onClick={() => void matchmaking.dismiss()}
              >
                {DISMISS}
              </Button>
            </Stack>
          )}
        </GridCard>
      )}
    </Stack>
  );
});
