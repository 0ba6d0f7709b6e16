import Box from '@mui/material/Box';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useEffect } from 'react';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  LOADING_RECENT_ACTIVITY,
  NO_RECENT_ACTIVITY,
  RECENT_GRID_ACTIVITY,
  RECENT_SKELETON_ROWS,
  TARGETED,
} from '../../strings/dashboard.ts';
import { formatDateTime } from '../history/format.ts';
import { OutcomeBadge } from '../history/OutcomeChip.tsx';
import { Stack } from '../Stack.tsx';
import { DashboardCard } from './DashboardCard.tsx';

export type RecentActivityCardProps = Record<string, never>;

/**
 * The last 3 attacks (core-app section 2, "Dashboard"): '{attacker} targeted {target}' with an outcome badge,
 * high for OWNED and low otherwise; 5 skeleton rows while they load; 'No recent attack activity on the grid.'
 * without any. A failure leaves the empty text (it is only logged). Loaded on every visit of the dashboard;
 * the last answer stays meanwhile.
 */
export const RecentActivityCard = observer(function RecentActivityCard(_props: RecentActivityCardProps) {
  const { dashboard } = useStores();

  useEffect(() => {
    void dashboard.loadRecentAttacks();
  }, [dashboard]);

  const attacks = dashboard.recentAttacks;
  const loading = dashboard.recentStatus === 'idle' || dashboard.recentStatus === 'loading';

  let content;
  if (attacks.length > 0) {
    content = (
      <Stack component="ul" spacing={1} sx={{ listStyle: 'none', m: 0, p: 0 }}>
        {attacks.map((attack) => (
          <Stack
            component="li"
            key={attack.id}
            direction="row"
            spacing={2}
            data-attack-id={attack.id}
            sx={{
              alignItems: 'center',
              justifyContent: 'space-between',
              px: 1.5,
              py: 1,
              borderRadius: 1,
              bgcolor: 'rgba(0, 0, 0, 0.3)',
              border: 1,
              borderColor: 'divider',
            }}
          >
            <Box sx={{ minWidth: 0 }}>
              <Typography data-testid="recent-attack" sx={{ overflowWrap: 'anywhere' }}>
                <Box component="span" sx={handle}>
                  {attack.attacker.handle}
                </Box>{' '}
                <Box component="span" sx={{ color: 'text.secondary' }}>
                  {TARGETED}
                </Box>{' '}
                <Box component="span" sx={handle}>
                  {attack.target.handle}
                </Box>
              </Typography>
              <Typography
                variant="caption"
                component="time"
                dateTime={attack.createdAt}
                color="text.secondary"
              >
                {formatDateTime(attack.createdAt)}
              </Typography>
            </Box>
            <OutcomeBadge outcome={attack.outcome} />
          </Stack>
        ))}
      </Stack>
    );
  } else if (loading) {
    content = (
      <Stack
        spacing={1}
        role="status"
        aria-label={LOADING_RECENT_ACTIVITY}
        data-testid="recent-activity-loading"
      >
        {Array.from({ length: RECENT_SKELETON_ROWS }, (_, row) => (
          <Skeleton key={row} variant="rounded" height={40} />
        ))}
      </Stack>
    );
  } else {
    content = <Typography color="text.secondary">{NO_RECENT_ACTIVITY}</Typography>;
  }

  return <DashboardCard title={RECENT_GRID_ACTIVITY}>{content}</DashboardCard>;
});

const handle = { fontFamily: 'monospace', fontWeight: 700 } as const;
