import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import {
  CREDIT_HISTORY_TABLE,
  HISTORY_UNAVAILABLE,
  LOADING_HISTORY,
  RETRY,
  reasonLabels,
} from '../../strings/credits.ts';
import { formatDateTime } from '../history/format.ts';
import { Stack } from '../Stack.tsx';
import { visuallyHidden } from '../styles.ts';
import { LedgerAmounts } from './LedgerAmounts.tsx';
import type { LedgerViewProps } from './LedgerTable.tsx';

export type LedgerListProps = LedgerViewProps;

/** The ledger on a phone: one block an entry, what and its change above, when and the balances after below. */
export function LedgerList({ rows, loading, failed, skeletonRows, empty, onRetry }: LedgerListProps) {
  if (loading) {
    return (
      <Box aria-busy sx={{ px: 2 }}>
        {Array.from({ length: skeletonRows }, (_, index) => (
          <Skeleton key={index} variant="text" height={56} data-testid="ledger-skeleton" />
        ))}
        <span role="status" aria-label={LOADING_HISTORY} style={visuallyHidden} />
      </Box>
    );
  }
  if (failed) {
    return (
      <Stack direction="row" spacing={2} sx={{ p: 2, alignItems: 'center', flexWrap: 'wrap' }}>
        <Typography color="text.secondary">{HISTORY_UNAVAILABLE}</Typography>
        <Button size="small" variant="outlined" onClick={onRetry}>
          {RETRY}
        </Button>
      </Stack>
    );
  }
  if (rows.length === 0) return <Box sx={{ px: 2 }}>{empty}</Box>;
  return (
    <Box component="ul" aria-label={CREDIT_HISTORY_TABLE} sx={{ listStyle: 'none', m: 0, p: 0 }}>
      {rows.map((row) => (
        <Box
          component="li"
          key={row.id}
          data-entry-id={row.id}
          sx={{
            px: 2,
            py: 1.5,
            display: 'grid',
            gridTemplateColumns: 'minmax(0, 1fr) auto',
            columnGap: 2,
            rowGap: 0.5,
            borderBottom: 1,
            borderColor: 'divider',
          }}
        >
          <Typography sx={{ overflowWrap: 'break-word' }}>
            {row.description || reasonLabels[row.reason]}
          </Typography>
          <Box sx={{ textAlign: 'right' }}>
            <LedgerAmounts entry={row} show="change" />
          </Box>
          <Typography variant="body2" color="text.secondary">
            {formatDateTime(row.createdAt)}
          </Typography>
          <Box sx={{ textAlign: 'right' }}>
            <LedgerAmounts entry={row} show="balance" />
          </Box>
        </Box>
      ))}
    </Box>
  );
}
