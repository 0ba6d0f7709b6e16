import type { BoxStatus as Status } from '@exploit-grid/api/contracts';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';

/** RUNNING is healthy (green); any other status is red (core-app section 4). */
export const isHealthy = (status: Status) => status === 'RUNNING';

export type StatusDotProps = { status: Status };

/** A small green or red dot; its color is also in `data-healthy` for tests and styling. */
export function StatusDot({ status }: StatusDotProps) {
  const healthy = isHealthy(status);
  return (
    <Box
      component="span"
      aria-hidden
      data-testid="status-dot"
      data-healthy={healthy}
      sx={{
        display: 'inline-block',
        flex: 'none',
        width: 10,
        height: 10,
        borderRadius: '50%',
        bgcolor: healthy ? 'success.main' : 'error.main',
        boxShadow: healthy ? '0 0 10px rgba(0, 230, 118, 0.6)' : '0 0 10px rgba(255, 23, 68, 0.5)',
      }}
    />
  );
}

export type BoxStatusChipProps = { status: Status };

/** The box status as a chip: green while RUNNING, red otherwise. */
export function BoxStatusChip({ status }: BoxStatusChipProps) {
  const healthy = isHealthy(status);
  return (
    <Chip
      size="small"
      variant="outlined"
      color={healthy ? 'success' : 'error'}
      icon={<StatusDot status={status} />}
      label={status}
      data-testid="box-status"
      data-healthy={healthy}
      sx={{ fontFamily: 'monospace', fontWeight: 700, letterSpacing: '0.08em', pl: 0.5 }}
    />
  );
}
