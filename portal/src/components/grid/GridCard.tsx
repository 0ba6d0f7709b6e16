import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';

export type GridCardProps = {
  title: string;
  /** The card's accent (its border and title). */
  tone?: 'primary' | 'error' | 'warning' | 'success';
  children: ReactNode;
};

/** A floating panel over the globe: the queue, the match, the attack, the target. */
export function GridCard({ title, tone = 'primary', children }: GridCardProps) {
  return (
    <Paper
      component="section"
      aria-label={title}
      variant="outlined"
      sx={{
        p: 2,
        width: { xs: '100%', sm: 320 },
        bgcolor: 'rgba(7, 13, 26, 0.88)',
        backdropFilter: 'blur(6px)',
        borderColor: `${tone}.main`,
        pointerEvents: 'auto',
      }}
    >
      <Typography variant="overline" component="h2" sx={{ color: `${tone}.main`, lineHeight: 1.6, mb: 1 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}
