import type { AttackHistoryItem } from '@exploit-grid/api/contracts';
import GpsFixed from '@mui/icons-material/GpsFixedOutlined';
import Shield from '@mui/icons-material/ShieldOutlined';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import {
  ATTACK_HISTORY,
  ATTACK_IN_PROGRESS,
  COLUMN_ACTIONS,
  COLUMN_DATE,
  COLUMN_OPPONENT,
  COLUMN_OUTCOME,
  COLUMN_ROLE,
  DETAILS,
  UNRATED,
  detailsLabel,
} from '../../strings/history.ts';
import { Stack } from '../Stack.tsx';
import { formatDateTime } from './format.ts';
import { OutcomeChip } from './OutcomeChip.tsx';
import { opponentOf, roleLabels, roleOf } from './outcome.ts';
import { tableHeaderCell as headerCell, visuallyHidden } from '../styles.ts';

export type HistoryTableProps = {
  items: readonly AttackHistoryItem[];
  viewerId: string | null;
  onDetails: (item: AttackHistoryItem) => void;
};

/**
 * The attacks, newest first: Role, Opponent, Outcome, Date and a Details button for the timeline, disabled
 * while the attack runs. The list scrolls within the page, its header staying in view.
 */
export function HistoryTable({ items, viewerId, onDetails }: HistoryTableProps) {
  return (
    <TableContainer sx={{ maxHeight: { md: 'calc(100vh - 260px)' }, minHeight: 0 }}>
      <Table stickyHeader size="small" aria-label={ATTACK_HISTORY} sx={{ minWidth: 640 }}>
        <TableHead>
          <TableRow>
            {[COLUMN_ROLE, COLUMN_OPPONENT, COLUMN_OUTCOME, COLUMN_DATE].map((column) => (
              <TableCell key={column} sx={headerCell}>
                {column}
              </TableCell>
            ))}
            <TableCell align="right" sx={headerCell}>
              <span style={visuallyHidden}>{COLUMN_ACTIONS}</span>
            </TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((item) => (
            <HistoryRow key={item.id} item={item} viewerId={viewerId} onDetails={onDetails} />
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

type HistoryRowProps = {
  item: AttackHistoryItem;
  viewerId: string | null;
  onDetails: (item: AttackHistoryItem) => void;
};

function HistoryRow({ item, viewerId, onDetails }: HistoryRowProps) {
  const role = roleOf(item, viewerId);
  const opponent = opponentOf(item, viewerId);
  const running = item.outcome === 'PENDING';
  const details = (
    <Button
      size="small"
      variant="outlined"
      disabled={running}
      onClick={() => onDetails(item)}
      aria-label={detailsLabel(opponent.handle)}
    >
      {DETAILS}
    </Button>
  );
  return (
    <TableRow hover data-attack-id={item.id}>
      <TableCell>
        <Stack
          direction="row"
          spacing={1}
          sx={{ alignItems: 'center', color: role === 'attack' ? 'secondary.main' : 'primary.main' }}
        >
          {role === 'attack' ? <GpsFixed fontSize="small" /> : <Shield fontSize="small" />}
          <span>{roleLabels[role]}</span>
        </Stack>
      </TableCell>
      <TableCell sx={{ fontFamily: 'monospace', fontWeight: 700 }}>{opponent.handle}</TableCell>
      <TableCell>
        <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
          <OutcomeChip outcome={item.outcome} role={role} />
          {!item.rated && (
            <Chip size="small" variant="outlined" label={UNRATED} data-testid="history-unrated" />
          )}
        </Stack>
      </TableCell>
      <TableCell sx={{ whiteSpace: 'nowrap', color: 'text.secondary' }}>
        <time dateTime={item.createdAt}>{formatDateTime(item.createdAt)}</time>
      </TableCell>
      <TableCell align="right">
        {running ? (
          // A disabled button gets no pointer events: the tooltip listens on its wrapper.
          <Tooltip title={ATTACK_IN_PROGRESS} describeChild placement="left" disableInteractive>
            <span tabIndex={0} style={{ display: 'inline-block' }}>
              {details}
            </span>
          </Tooltip>
        ) : (
          details
        )}
      </TableCell>
    </TableRow>
  );
}
