import type { AttackOutcome } from '@exploit-grid/api/contracts';
import Chip from '@mui/material/Chip';
import { outcomeName, outcomeSeverity, outcomeView, type AttackRole } from './outcome.ts';

const chipText = { fontFamily: 'monospace', fontWeight: 700, letterSpacing: '0.04em' } as const;

export type OutcomeChipProps = { outcome: AttackOutcome; role: AttackRole };

/**
 * An outcome from the viewer's side, per the outcome table: 'Owned' / 'Was Owned' in red, 'Foothold' / 'Was
 * Breached' in yellow, 'Defended', 'Timed Out' and 'Survived' in green, 'In Progress', 'Lost Nerve' and
 * 'Attacker Bailed' in grey.
 */
export function OutcomeChip({ outcome, role }: OutcomeChipProps) {
  const view = outcomeView(outcome, role);
  return (
    <Chip
      size="small"
      variant="outlined"
      color={view.color}
      label={view.label}
      data-testid="outcome"
      data-outcome={outcome}
      data-result={view.result}
      sx={chipText}
    />
  );
}

export type OutcomeBadgeProps = { outcome: AttackOutcome };

/** An outcome for a third party (the dashboard's recent activity): OWNED a high (red) badge, others low (grey). */
export function OutcomeBadge({ outcome }: OutcomeBadgeProps) {
  const severity = outcomeSeverity(outcome);
  return (
    <Chip
      size="small"
      variant={severity === 'high' ? 'filled' : 'outlined'}
      color={severity === 'high' ? 'error' : 'default'}
      label={outcomeName(outcome)}
      data-testid="outcome-badge"
      data-outcome={outcome}
      data-severity={severity}
      sx={{ ...chipText, flex: 'none' }}
    />
  );
}
