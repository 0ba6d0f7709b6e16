import Typography from '@mui/material/Typography';
import { NO_RECENT_ACTIVITY, RECENT_GRID_ACTIVITY } from '../../strings/dashboard.ts';
import { DashboardCard } from './DashboardCard.tsx';

export type RecentActivityCardProps = Record<string, never>;

/** The last attacks on the grid; the list (GET /attack/history/all?limit=3) arrives with attack history. */
export function RecentActivityCard(_props: RecentActivityCardProps) {
  return (
    <DashboardCard title={RECENT_GRID_ACTIVITY}>
      <Typography color="text.secondary">{NO_RECENT_ACTIVITY}</Typography>
    </DashboardCard>
  );
}
