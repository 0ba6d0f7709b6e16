import type { VulnerabilitySeverity } from '@exploit-grid/api/contracts/security-constants';
import Box from '@mui/material/Box';
import { SEVERITY_LABELS } from '../../strings/security.ts';

export type SeverityTagProps = { severity: VulnerabilitySeverity };

/** The colour of each severity, from red (critical) to the theme's cyan (informational). */
export const SEVERITY_COLORS: Record<VulnerabilitySeverity, string> = {
  CRITICAL: '#ff1744',
  HIGH: '#ff9100',
  MEDIUM: '#ffd600',
  LOW: '#00e676',
  INFORMATIONAL: '#00e5ff',
};

/** A finding's severity as a small outlined label in its colour (no Chip: see Tag.tsx). */
export function SeverityTag({ severity }: SeverityTagProps) {
  const color = SEVERITY_COLORS[severity];
  return (
    <Box
      component="span"
      sx={{
        display: 'inline-flex',
        alignItems: 'center',
        height: 22,
        px: 1,
        borderRadius: 11,
        border: 1,
        borderColor: color,
        color,
        fontSize: '0.75rem',
        fontWeight: 700,
        lineHeight: 1,
        whiteSpace: 'nowrap',
      }}
    >
      {SEVERITY_LABELS[severity]}
    </Box>
  );
}
