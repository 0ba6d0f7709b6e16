import type { AttackEventType } from '@exploit-grid/api/contracts';
import Close from '@mui/icons-material/Close';
import ContentCopy from '@mui/icons-material/ContentCopyOutlined';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import IconButton from '@mui/material/IconButton';
import Skeleton from '@mui/material/Skeleton';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useId, type ReactNode } from 'react';
import type { TimelineEntry } from '../../stores/HistoryStore.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import { COPIED, copyLabel } from '../../strings/box.ts';
import {
  ATTACK_EVENTS_FAILED,
  ATTACK_TIMELINE,
  CLOSE,
  COMMAND_KIND,
  COMMAND_LOGS_FAILED,
  COPY_IP,
  COPY_IP_FAILED,
  LOADING_TIMELINE,
  NOT_ENDED,
  NO_LOGS,
  NO_TARGET_IP,
  TIMELINE_ENDED,
  TIMELINE_ENTRIES,
  TIMELINE_OPPONENT,
  TIMELINE_OUTCOME,
  TIMELINE_ROLE,
  TIMELINE_STARTED,
  TIMELINE_TARGET_IP,
  TIMELINE_SERVICES,
  SERVICES_KEPT_UP,
  SERVICES_NOT_KEPT_UP,
  NO_SERVICES_CHECKED,
  commandPrompt,
} from '../../strings/history.ts';
import { useCopied } from '../box/useCopied.ts';
import { Stack } from '../Stack.tsx';
import { formatPreciseDateTime, formatTimeOfDay } from './format.ts';
import { OutcomeChip } from './OutcomeChip.tsx';
import { opponentOf, roleLabels, roleOf } from './outcome.ts';

export type TimelineDialogProps = Record<string, never>;

/**
 * The attack timeline (the Kill Chains page's Details): who, which side, how it ended, when; then the
 * attacker's commands and the attack's events in time order. A half that failed to load says so inline and
 * the other half still shows.
 */
export const TimelineDialog = observer(function TimelineDialog(_props: TimelineDialogProps) {
  const { history } = useStores();
  const titleId = useId();
  const { copied, copy } = useCopied(COPY_IP_FAILED);
  const timeline = history.timeline;
  if (!timeline) return null;

  const { attack } = timeline;
  const role = roleOf(attack, history.viewerId);
  const opponent = opponentOf(attack, history.viewerId);
  const entries = history.entries;
  const empty =
    !timeline.loading && !timeline.commandsFailed && !timeline.eventsFailed && entries.length === 0;

  return (
    <Dialog
      open
      onClose={() => history.closeTimeline()}
      aria-labelledby={titleId}
      maxWidth="md"
      fullWidth
      scroll="paper"
      slotProps={{
        paper: { variant: 'outlined', sx: { bgcolor: 'background.default', borderColor: 'divider' } },
      }}
    >
      <DialogTitle id={titleId} sx={{ pr: 7 }}>
        {ATTACK_TIMELINE}
      </DialogTitle>
      <IconButton
        aria-label={CLOSE}
        onClick={() => history.closeTimeline()}
        sx={{ position: 'absolute', right: 12, top: 12, color: 'text.secondary' }}
      >
        <Close />
      </IconButton>
      <Box
        component="dl"
        data-testid="timeline-header"
        sx={{
          m: 0,
          px: 3,
          pb: 2,
          display: 'grid',
          gap: 2,
          gridTemplateColumns: { xs: '1fr 1fr', sm: 'repeat(6, auto)' },
          justifyContent: 'start',
          columnGap: 4,
        }}
      >
        <Fact label={TIMELINE_OPPONENT}>
          <Box component="span" sx={{ fontFamily: 'monospace', fontWeight: 700 }}>
            {opponent.handle}
          </Box>
        </Fact>
        <Fact label={TIMELINE_ROLE}>{roleLabels[role]}</Fact>
        <Fact label={TIMELINE_OUTCOME}>
          <OutcomeChip outcome={attack.outcome} role={role} />
        </Fact>
        <Fact label={TIMELINE_TARGET_IP}>
          {attack.targetIp ? (
            <Stack component="span" direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
              <Box component="span" sx={{ fontFamily: 'monospace' }}>
                {attack.targetIp}
              </Box>
              <Tooltip title={copyLabel(COPY_IP)}>
                <IconButton
                  size="small"
                  aria-label={copyLabel(COPY_IP)}
                  onClick={() => void copy('ip', attack.targetIp!)}
                  sx={{ p: 0.25 }}
                >
                  <ContentCopy fontSize="inherit" />
                </IconButton>
              </Tooltip>
              {copied === 'ip' && (
                <Box
                  component="span"
                  role="status"
                  sx={{ color: 'success.main', fontWeight: 700, fontSize: '0.75rem' }}
                >
                  {COPIED}
                </Box>
              )}
            </Stack>
          ) : (
            NO_TARGET_IP
          )}
        </Fact>
        <Fact label={TIMELINE_SERVICES}>
          {attack.services.every((s) => s.up === null) ? (
            NO_SERVICES_CHECKED
          ) : (
            <Box
              component="span"
              data-testid="timeline-services"
              sx={{ color: attack.servicesUp ? 'success.main' : 'warning.main' }}
            >
              {attack.servicesUp ? SERVICES_KEPT_UP : SERVICES_NOT_KEPT_UP}
            </Box>
          )}
        </Fact>
        <Fact label={TIMELINE_STARTED}>
          <time dateTime={attack.createdAt}>{formatPreciseDateTime(attack.createdAt)}</time>
        </Fact>
        <Fact label={TIMELINE_ENDED}>
          {attack.endedAt ? (
            <time dateTime={attack.endedAt}>{formatPreciseDateTime(attack.endedAt)}</time>
          ) : (
            NOT_ENDED
          )}
        </Fact>
      </Box>
      <DialogContent dividers sx={{ minHeight: 200 }}>
        {timeline.loading ? (
          <Stack spacing={1.25} role="status" aria-label={LOADING_TIMELINE}>
            {[0, 1, 2, 3].map((row) => (
              <Skeleton key={row} variant="rounded" height={28} />
            ))}
          </Stack>
        ) : (
          <Stack spacing={2}>
            {timeline.commandsFailed && <Alert severity="error">{COMMAND_LOGS_FAILED}</Alert>}
            {timeline.eventsFailed && <Alert severity="error">{ATTACK_EVENTS_FAILED}</Alert>}
            {empty && <Typography color="text.secondary">{NO_LOGS}</Typography>}
            {entries.length > 0 && (
              <Box
                component="ol"
                aria-label={TIMELINE_ENTRIES}
                sx={{
                  listStyle: 'none',
                  m: 0,
                  p: 0,
                  display: 'grid',
                  // Time and kind as wide as their widest entry, aligned across the rows (each row a subgrid).
                  gridTemplateColumns: {
                    xs: 'max-content minmax(0, 1fr)',
                    sm: 'max-content max-content minmax(0, 1fr)',
                  },
                  rowGap: 0.5,
                }}
              >
                {entries.map((entry) => (
                  <TimelineRow key={entry.key} entry={entry} />
                ))}
              </Box>
            )}
          </Stack>
        )}
      </DialogContent>
    </Dialog>
  );
});

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box sx={{ minWidth: 0 }}>
      <Typography
        component="dt"
        variant="overline"
        sx={{ display: 'block', color: 'text.secondary', lineHeight: 1.6, fontSize: '0.68rem' }}
      >
        {label}
      </Typography>
      <Typography component="dd" variant="body2" sx={{ m: 0 }}>
        {children}
      </Typography>
    </Box>
  );
}

const eventColors: Record<AttackEventType, 'error' | 'warning' | 'success' | 'info' | 'default'> = {
  COMMAND: 'default',
  FOOTHOLD: 'warning',
  OWN: 'error',
  EVICTED: 'success',
  AGENT_SILENT: 'info',
  AGENT_BACK: 'info',
  FORFEIT: 'error',
  SERVICE_DOWN: 'warning',
  SERVICE_UP: 'success',
  UNRATED: 'info',
  BAILED: 'info',
};

/** Time, kind, and the line: `user@cwd $ command` for a command, the type's message for an event. */
function TimelineRow({ entry }: { entry: TimelineEntry }) {
  return (
    <Box
      component="li"
      data-kind={entry.kind}
      sx={{
        display: 'grid',
        gridColumn: '1 / -1',
        gridTemplateColumns: 'subgrid',
        columnGap: 2,
        rowGap: 0.5,
        alignItems: 'center',
        py: 0.75,
        px: 1,
        borderRadius: 1,
        bgcolor: entry.kind === 'command' ? 'rgba(0, 0, 0, 0.35)' : 'transparent',
      }}
    >
      <Typography
        component="time"
        dateTime={entry.at}
        variant="body2"
        sx={{ fontFamily: 'monospace', color: 'text.secondary', whiteSpace: 'nowrap' }}
      >
        {formatTimeOfDay(entry.at)}
      </Typography>
      <Box>
        <Chip
          size="small"
          variant={entry.kind === 'command' ? 'outlined' : 'filled'}
          color={entry.kind === 'command' ? 'primary' : eventColors[entry.event.type]}
          label={entry.kind === 'command' ? COMMAND_KIND : entry.event.type}
          sx={{ fontFamily: 'monospace', fontWeight: 700, fontSize: '0.7rem', height: 22 }}
        />
      </Box>
      {entry.kind === 'command' ? (
        <Box
          component="code"
          data-testid="timeline-command"
          sx={{
            gridColumn: { xs: '1 / -1', sm: 'auto' },
            fontFamily: 'monospace',
            fontSize: '0.85rem',
            wordBreak: 'break-all',
            whiteSpace: 'pre-wrap',
          }}
        >
          <Box component="span" sx={{ color: 'primary.main' }}>
            {commandPrompt(entry.command.user, entry.command.cwd)}
          </Box>{' '}
          {entry.command.command}
        </Box>
      ) : (
        <Typography
          variant="body2"
          data-testid="timeline-event"
          sx={{ gridColumn: { xs: '1 / -1', sm: 'auto' }, wordBreak: 'break-word' }}
        >
          {entry.event.details.message}
        </Typography>
      )}
    </Box>
  );
}
