import type { LedgerEntryView } from '@exploit-grid/api/contracts';
import Typography from '@mui/material/Typography';
import { formatCredits } from '../../strings/appShell.ts';
import { CREDITS_UNIT, GIFT_UNIT, formatDelta } from '../../strings/credits.ts';

export type LedgerAmountsProps = { entry: LedgerEntryView; show: 'change' | 'balance' };

/**
 * A ledger entry's numbers, one line a balance: what changed ('+2000.00 Credits', '−0.67 Gift'; a movement
 * of neither shows its Credits line) or both balances after it. Shared by the table and the phone list.
 */
export function LedgerAmounts({ entry, show }: LedgerAmountsProps) {
  if (show === 'balance') {
    return (
      <>
        <Typography component="div" variant="body2" sx={{ fontFamily: 'monospace' }}>
          {formatCredits(entry.credits)} {CREDITS_UNIT}
        </Typography>
        <Typography component="div" variant="body2" color="text.secondary" sx={{ fontFamily: 'monospace' }}>
          {formatCredits(entry.freeCredits)} {GIFT_UNIT}
        </Typography>
      </>
    );
  }
  const changes: [string, number][] = [
    [CREDITS_UNIT, entry.creditsDelta],
    [GIFT_UNIT, entry.freeCreditsDelta],
  ];
  const moved = changes.filter(([, delta]) => delta !== 0);
  return (
    <>
      {(moved.length > 0 ? moved : changes.slice(0, 1)).map(([unit, delta]) => (
        <Typography
          key={unit}
          component="div"
          variant="body2"
          sx={{
            fontFamily: 'monospace',
            fontWeight: 700,
            whiteSpace: 'nowrap',
            color: delta > 0 ? 'success.main' : delta < 0 ? 'error.main' : 'text.secondary',
          }}
        >
          {formatDelta(delta)} {unit}
        </Typography>
      ))}
    </>
  );
}
