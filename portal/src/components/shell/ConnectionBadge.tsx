import Box from '@mui/material/Box';
import { keyframes } from '@mui/material/styles';
import { BRAND_SHORT, OFF_THE_GRID, ON_THE_GRID } from '../../strings/appShell.ts';

const blink = keyframes`
  0%, 100% { opacity: 1; }
  50% { opacity: 0.35; }
`;

export type ConnectionBadgeProps = {
  connected: boolean;
  /** With the sidebar collapsed the badge shrinks to 'EG'; its accessible name keeps the status. */
  compact: boolean;
};

/** 'On the Grid' (cyan) while the grid socket is connected, 'Off the Grid' (red) otherwise: the top bar's first status. */
export function ConnectionBadge({ connected, compact }: ConnectionBadgeProps) {
  const status = connected ? ON_THE_GRID : OFF_THE_GRID;
  const color = connected ? 'primary.main' : 'error.main';
  return (
    <Box
      role="status"
      aria-label={status}
      title={status}
      data-testid="connection-badge"
      data-connected={connected}
      sx={{
        display: 'inline-flex',
        alignItems: 'center',
        gap: 1,
        px: 1.5,
        py: 0.5,
        borderRadius: 999,
        border: 1,
        borderColor: color,
        color,
        bgcolor: 'rgba(5, 7, 13, 0.85)',
        boxShadow: connected ? '0 0 16px rgba(0, 229, 255, 0.35)' : '0 0 16px rgba(255, 23, 68, 0.3)',
        fontFamily: 'monospace',
        fontSize: '0.8rem',
        fontWeight: 700,
        letterSpacing: '0.06em',
        textTransform: 'uppercase',
        whiteSpace: 'nowrap',
      }}
    >
      <Box
        component="span"
        aria-hidden
        sx={{
          width: 8,
          height: 8,
          borderRadius: '50%',
          bgcolor: color,
          animation: connected ? `${blink} 1.6s ease-in-out infinite` : 'none',
          '@media (prefers-reduced-motion: reduce)': { animation: 'none' },
        }}
      />
      <span>{compact ? BRAND_SHORT : status}</span>
    </Box>
  );
}
