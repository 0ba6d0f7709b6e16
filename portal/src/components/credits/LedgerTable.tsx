import type { LedgerEntryView } from '@exploit-grid/api/contracts';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import {
  COLUMN_BALANCE,
  COLUMN_CHANGE,
  COLUMN_DATE,
  COLUMN_WHAT,
  CREDIT_HISTORY_TABLE,
  HISTORY_UNAVAILABLE,
  LOADING_HISTORY,
  RETRY,
  reasonLabels,
} from '../../strings/credits.ts';
import { formatDateTime } from '../history/format.ts';
import { Stack } from '../Stack.tsx';
import { tableHeaderCell, visuallyHidden } from '../styles.ts';
import { LedgerAmounts } from './LedgerAmounts.tsx';

const COLUMNS = [COLUMN_DATE, COLUMN_WHAT, COLUMN_CHANGE, COLUMN_BALANCE] as const;

export type LedgerViewProps = {
  rows: readonly LedgerEntryView[];
  loading: boolean;
  failed: boolean;
  skeletonRows: number;
  /** Shown in place of rows when there are none. */
  empty: ReactNode;
  onRetry: () => void;
};

/** One page of the ledger: when, what, the change to Credits and Gift, and both balances after it. */
export type LedgerTableProps = LedgerViewProps;

export function LedgerTable({ rows, loading, failed, skeletonRows, empty, onRetry }: LedgerTableProps) {
  return (
    <TableContainer>
      <Table size="small" aria-label={CREDIT_HISTORY_TABLE} aria-busy={loading}>
        <TableHead>
          <TableRow>
            {COLUMNS.map((label, index) => (
              <TableCell key={label} align={index >= 2 ? 'right' : 'left'} sx={tableHeaderCell}>
                {label}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {loading ? (
            Array.from({ length: skeletonRows }, (_, index) => (
              <TableRow key={index} data-testid="ledger-skeleton">
                {COLUMNS.map((label) => (
                  <TableCell key={label}>
                    <Skeleton variant="text" />
                  </TableCell>
                ))}
              </TableRow>
            ))
          ) : failed ? (
            <TableRow>
              <TableCell colSpan={COLUMNS.length}>
                <Stack direction="row" spacing={2} sx={{ py: 1.5, alignItems: 'center', flexWrap: 'wrap' }}>
                  <Typography color="text.secondary">{HISTORY_UNAVAILABLE}</Typography>
                  <Button size="small" variant="outlined" onClick={onRetry}>
                    {RETRY}
                  </Button>
                </Stack>
              </TableCell>
            </TableRow>
          ) : rows.length === 0 ? (
            <TableRow>
              <TableCell colSpan={COLUMNS.length}>{empty}</TableCell>
            </TableRow>
          ) : (
            rows.map((row) => <LedgerRow key={row.id} row={row} />)
          )}
        </TableBody>
      </Table>
      {loading && <span role="status" aria-label={LOADING_HISTORY} style={visuallyHidden} />}
    </TableContainer>
  );
}

function LedgerRow({ row }: { row: LedgerEntryView }) {
  return (
    <TableRow hover data-entry-id={row.id}>
      <TableCell sx={{ color: 'text.secondary' }}>{formatDateTime(row.createdAt)}</TableCell>
      <TableCell>{row.description || reasonLabels[row.reason]}</TableCell>
      <TableCell align="right">
        <LedgerAmounts entry={row} show="change" />
      </TableCell>
      <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
        <LedgerAmounts entry={row} show="balance" />
      </TableCell>
    </TableRow>
  );
}
