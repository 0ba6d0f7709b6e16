import type { LeaderboardRow, LeaderboardSortField } from '@exploit-grid/api/contracts';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TableSortLabel from '@mui/material/TableSortLabel';
import Typography from '@mui/material/Typography';
import { defaultOrderOf, type SortOrder } from '../../stores/LeaderboardStore.ts';
import {
  COLUMN_ATTACKS,
  COLUMN_DEFENSE_RATE,
  COLUMN_DEFENSES,
  COLUMN_MMR,
  COLUMN_OPERATOR,
  COLUMN_RANK,
  COLUMN_WIN_RATE,
  DEFAULT_MMR,
  GOOD_RATE_ABOVE,
  LEADERBOARD_TABLE,
  LEADERBOARD_UNAVAILABLE,
  LOADING_LEADERBOARD,
  NO_OPERATORS,
  RETRY,
  YOU,
  formatRate,
  formatRecord,
} from '../../strings/leaderboard.ts';
import { Stack } from '../Stack.tsx';
import { tableHeaderCell, visuallyHidden } from '../styles.ts';

type Column = { label: string; field: LeaderboardSortField; numeric: boolean };

/** The columns and what each sorts by: Attacks and Defenses by the number won, which they show first. */
const COLUMNS: readonly Column[] = [
  { label: COLUMN_RANK, field: 'rank', numeric: false },
  { label: COLUMN_OPERATOR, field: 'handle', numeric: false },
  { label: COLUMN_MMR, field: 'mmr', numeric: true },
  { label: COLUMN_ATTACKS, field: 'attacksWon', numeric: true },
  { label: COLUMN_WIN_RATE, field: 'winRate', numeric: true },
  { label: COLUMN_DEFENSES, field: 'defensesWon', numeric: true },
  { label: COLUMN_DEFENSE_RATE, field: 'defenseRate', numeric: true },
];

export type LeaderboardTableProps = {
  rows: readonly LeaderboardRow[];
  /** Skeleton rows in place of the operators. */
  loading: boolean;
  /** The page could not be loaded: a Retry in place of the operators. */
  failed: boolean;
  viewerId: string | null;
  sortBy: LeaderboardSortField;
  sortOrder: SortOrder;
  /** Rows the skeleton shows. */
  skeletonRows: number;
  onSort: (field: LeaderboardSortField) => void;
  onRetry: () => void;
};

/**
 * One page of operators: rank, handle, MMR, attacks and defenses won of all, win and defense rates (green
 * above 50%). Every header sorts, a second click flips the order. The signed-in operator's row is selected and
 * marked 'You'.
 */
export function LeaderboardTable(props: LeaderboardTableProps) {
  const { rows, loading, failed, viewerId, sortBy, sortOrder, skeletonRows, onSort, onRetry } = props;
  return (
    <TableContainer>
      <Table size="small" aria-label={LEADERBOARD_TABLE} aria-busy={loading} sx={{ minWidth: 760 }}>
        <TableHead>
          <TableRow>
            {COLUMNS.map((column) => {
              const active = column.field === sortBy;
              return (
                <TableCell
                  key={column.field}
                  align={column.numeric ? 'right' : 'left'}
                  sortDirection={active ? sortOrder : false}
                  sx={headerCell}
                >
                  <TableSortLabel
                    active={active}
                    direction={active ? sortOrder : defaultOrderOf(column.field)}
                    onClick={() => onSort(column.field)}
                  >
                    {column.label}
                  </TableSortLabel>
                </TableCell>
              );
            })}
          </TableRow>
        </TableHead>
        <TableBody>
          {loading ? (
            Array.from({ length: skeletonRows }, (_, index) => (
              <TableRow key={index} data-testid="leaderboard-skeleton">
                {COLUMNS.map((column) => (
                  <TableCell key={column.field}>
                    <Skeleton variant="text" />
                  </TableCell>
                ))}
              </TableRow>
            ))
          ) : failed ? (
            <TableRow>
              <TableCell colSpan={COLUMNS.length}>
                <Stack direction="row" spacing={2} sx={{ py: 1.5, alignItems: 'center' }}>
                  <Typography color="text.secondary">{LEADERBOARD_UNAVAILABLE}</Typography>
                  <Button size="small" variant="outlined" onClick={onRetry}>
                    {RETRY}
                  </Button>
                </Stack>
              </TableCell>
            </TableRow>
          ) : rows.length === 0 ? (
            <TableRow>
              <TableCell colSpan={COLUMNS.length}>
                <Typography color="text.secondary" sx={{ py: 1.5 }}>
                  {NO_OPERATORS}
                </Typography>
              </TableCell>
            </TableRow>
          ) : (
            rows.map((row) => <OperatorRow key={row.id} row={row} own={row.id === viewerId} />)
          )}
        </TableBody>
      </Table>
      {loading && <span role="status" aria-label={LOADING_LEADERBOARD} style={visuallyHidden} />}
    </TableContainer>
  );
}

type OperatorRowProps = { row: LeaderboardRow; own: boolean };

function OperatorRow({ row, own }: OperatorRowProps) {
  return (
    <TableRow hover selected={own} aria-current={own ? 'true' : undefined} data-operator-id={row.id}>
      <TableCell sx={{ fontFamily: 'monospace', fontWeight: 700 }}>{row.rank}</TableCell>
      <TableCell>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Typography component="span" sx={{ fontFamily: 'monospace', fontWeight: 700 }}>
            {row.handle}
          </Typography>
          {own && <Chip size="small" color="primary" variant="outlined" label={YOU} />}
        </Stack>
      </TableCell>
      <TableCell align="right" sx={{ fontFamily: 'monospace' }}>
        {mmrOf(row)}
      </TableCell>
      <TableCell align="right" sx={{ fontFamily: 'monospace' }}>
        {formatRecord(row.attacksWon, row.totalAttacks)}
      </TableCell>
      <RateCell percent={row.winRate} testId="win-rate" />
      <TableCell align="right" sx={{ fontFamily: 'monospace' }}>
        {formatRecord(row.defensesWon, row.totalDefenses)}
      </TableCell>
      <RateCell percent={row.defenseRate} testId="defense-rate" />
    </TableRow>
  );
}

/** A rate with one decimal, green above 50% (as shown: 50.04 reads '50.0%' and is not green). */
function RateCell({ percent, testId }: { percent: number; testId: string }) {
  const good = Number(percent.toFixed(1)) > GOOD_RATE_ABOVE;
  return (
    <TableCell
      align="right"
      data-testid={testId}
      data-good={good}
      sx={{
        fontFamily: 'monospace',
        fontWeight: good ? 700 : 400,
        color: good ? 'success.main' : 'text.secondary',
      }}
    >
      {formatRate(percent)}
    </TableCell>
  );
}

/** The row's MMR; an operator who has none yet starts at 1000. */
function mmrOf(row: { mmr?: number | null }): number {
  return row.mmr ?? DEFAULT_MMR;
}

const headerCell = { ...tableHeaderCell, whiteSpace: 'nowrap' } as const;
