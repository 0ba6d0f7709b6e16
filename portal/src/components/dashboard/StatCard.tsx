import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { ReactElement, ReactNode } from 'react';
import { Stack } from '../Stack.tsx';

export type StatCardProps = {
  label: string;
  value: string;
  icon: ReactElement;
  accent: string;
  /** An explanation next to the label (an InfoHint). */
  info?: ReactNode;
  /** A line under the value ('You get a rank after your first fight.'). */
  note?: string;
};

/** One number of the dashboard (rank, attacks won, defences won). */
export function StatCard({ label, value, icon, accent, info, note }: StatCardProps) {
  return (
    <Paper
      variant="outlined"
      role="group"
      aria-label={label}
      sx={{
        p: 2.5,
        bgcolor: 'rgba(11, 17, 32, 0.8)',
        borderColor: 'divider',
        borderTop: 2,
        borderTopColor: accent,
      }}
    >
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', color: accent }}>
        {icon}
        <Typography variant="overline" component="h2" sx={{ color: 'text.secondary', lineHeight: 1.5 }}>
          {label}
        </Typography>
        {info}
      </Stack>
      <Typography variant="h4" component="p" sx={{ mt: 1 }}>
        {value}
      </Typography>
      {note && (
        <Typography variant="caption" component="div" color="text.secondary" data-testid="stat-note">
          {note}
        </Typography>
      )}
    </Paper>
  );
}
