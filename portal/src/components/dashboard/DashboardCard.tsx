import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';

export type DashboardCardProps = { title: string; children: ReactNode };

/** A titled panel of the dashboard ('Your Box', 'Recent Grid Activity'). */
export function DashboardCard({ title, children }: DashboardCardProps) {
  return (
    <Paper
      component="section"
      variant="outlined"
      aria-label={title}
      sx={{ p: 3, bgcolor: 'rgba(11, 17, 32, 0.8)', borderColor: 'divider', height: '100%' }}
    >
      <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}
