import type { Box as BoxModel } from '@exploit-grid/api/contracts';
import Delete from '@mui/icons-material/DeleteForeverOutlined';
import PlayArrow from '@mui/icons-material/PlayArrow';
import RestartAlt from '@mui/icons-material/RestartAlt';
import Stop from '@mui/icons-material/Stop';
import Visibility from '@mui/icons-material/VisibilityOutlined';
import VisibilityOff from '@mui/icons-material/VisibilityOffOutlined';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { formatCountdown, formatDuration } from '../../stores/BoxStore.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  ACCUMULATED_TIME,
  BOX_READY,
  CRASHED_TEXT,
  DAILY_LIMIT_MESSAGE,
  DAILY_TIME_HINT,
  DAILY_TIME_LEFT,
  DELETE_BOX,
  DELETING,
  HIDDEN_PASSWORD,
  HIDE_PASSWORD,
  HOSTNAME_LABEL,
  IP_LABEL,
  LAST_POWERED,
  NEVER_POWERED,
  NO_IP_YET,
  NO_OPEN_PORTS,
  OPEN_PORTS,
  PREPARING,
  PREPARING_HINT,
  PROVISIONING,
  READY_HINT,
  RESETTING,
  RESET_BOX,
  ROOT_PASSWORD_LABEL,
  SHOW_PASSWORD,
  START_BOX,
  STARTING,
  STOPPED_TEXT,
  STOPPING,
  STOP_BOX,
  buildingImage,
  sshCommand,
} from '../../strings/box.ts';
import { Stack } from '../Stack.tsx';
import { BoxCost } from './BoxCost.tsx';
import { BoxServices } from './BoxServices.tsx';
import { BoxStatusChip } from './BoxStatus.tsx';
import { CopyField } from './CopyField.tsx';
import { ConfirmBoxDialog } from './ConfirmBoxDialog.tsx';
import { useCopied } from './useCopied.ts';

// Below the fold, and only for a box: its code (list, form, store) loads when it shows.
const BoxSnapshots = lazy(async () => ({ default: (await import('./BoxSnapshots.tsx')).BoxSnapshots }));

export type BoxDetailsProps = {
  box: BoxModel;
  /** Boxes cannot run here now (runtime unavailable): Start is disabled. */
  unavailable: boolean;
};

/**
 * The operator's box: name, address and root password to copy, status, readiness ('Preparing...' until a
 * VPN client is connected), usage, open ports, the BASIC daily countdown, and power and delete.
 */
export const BoxDetails = observer(function BoxDetails({ box, unavailable }: BoxDetailsProps) {
  const { box: boxes } = useStores();
  const { copied, copy } = useCopied();
  const [revealed, setRevealed] = useState(false);
  const [confirming, setConfirming] = useState(false);
  // Kept while the dialog fades out, so its texts do not change as it closes.
  const [action, setAction] = useState<'delete' | 'reset'>('delete');
  const confirm = (what: 'delete' | 'reset') => {
    setAction(what);
    setConfirming(true);
  };

  const starting = boxes.isPending('start');
  const stopping = boxes.isPending('stop');
  const deleting = boxes.isPending('delete');
  const resetting = boxes.isPending('reset');
  const powering = starting || stopping;
  const canStart =
    (box.status === 'STOPPED' || box.status === 'CRASHED') && !unavailable && !boxes.dailyLimitReached;
  const canStop = box.status === 'RUNNING';

  return (
    <Stack spacing={3}>
      <Stack
        direction="row"
        spacing={2}
        sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', rowGap: 1 }}
      >
        <Typography variant="h5" component="h3" sx={{ fontSize: '1.3rem', wordBreak: 'break-all' }}>
          {box.hostname}
        </Typography>
        <BoxStatusChip status={box.status} />
      </Stack>
      {box.statusReason && (
        <Typography variant="body2" color="text.secondary" data-testid="status-reason">
          {box.statusReason}
        </Typography>
      )}

      <Readiness box={box} />

      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: 'repeat(3, 1fr)' } }}>
        <CopyField
          label={HOSTNAME_LABEL}
          copyName="hostname"
          display={box.hostname}
          value={box.hostname}
          copied={copied === 'hostname'}
          onCopy={(value) => void copy('hostname', value)}
        />
        <CopyField
          label={IP_LABEL}
          copyName="IP address"
          display={box.ip ?? NO_IP_YET}
          value={box.ip}
          copied={copied === 'ip'}
          onCopy={(value) => void copy('ip', value)}
        />
        <CopyField
          label={ROOT_PASSWORD_LABEL}
          copyName="root password"
          display={<span data-testid="root-password">{revealed ? box.ssh_password : HIDDEN_PASSWORD}</span>}
          value={box.ssh_password}
          copied={copied === 'password'}
          onCopy={(value) => void copy('password', value)}
          actions={
            <Tooltip title={revealed ? HIDE_PASSWORD : SHOW_PASSWORD}>
              <IconButton
                size="small"
                aria-label={revealed ? HIDE_PASSWORD : SHOW_PASSWORD}
                aria-pressed={revealed}
                onClick={() => setRevealed((shown) => !shown)}
              >
                {revealed ? <VisibilityOff fontSize="inherit" /> : <Visibility fontSize="inherit" />}
              </IconButton>
            </Tooltip>
          }
        />
      </Box>

      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: 'repeat(3, 1fr)' } }}>
        <Fact label={ACCUMULATED_TIME} value={formatDuration(box.accumulatedUsageSeconds)} />
        <Fact
          label={LAST_POWERED}
          value={box.lastPoweredAt ? new Date(box.lastPoweredAt).toLocaleString() : NEVER_POWERED}
        />
        {boxes.dailyRemainingSeconds !== null && (
          <Box role="group" aria-label={DAILY_TIME_LEFT}>
            <Typography variant="overline" component="p" sx={{ color: 'text.secondary', lineHeight: 1.8 }}>
              {DAILY_TIME_LEFT}
            </Typography>
            <Typography
              data-testid="daily-countdown"
              sx={{
                fontFamily: 'monospace',
                fontSize: '1.25rem',
                fontWeight: 700,
                color: boxes.dailyLimitReached ? 'error.main' : 'warning.main',
              }}
            >
              {formatCountdown(boxes.dailyRemainingSeconds)}
            </Typography>
            <Typography variant="caption" color="text.secondary">
              {DAILY_TIME_HINT}
            </Typography>
          </Box>
        )}
      </Box>
      {boxes.dailyLimitReached && <Alert severity="warning">{DAILY_LIMIT_MESSAGE}</Alert>}

      <Box role="group" aria-label={OPEN_PORTS}>
        <Typography variant="overline" component="p" sx={{ color: 'text.secondary', lineHeight: 1.8 }}>
          {OPEN_PORTS}
        </Typography>
        <OpenPorts ports={box.openPorts} />
      </Box>

      <BoxServices box={box} />
      <Suspense fallback={null}>
        <BoxSnapshots />
      </Suspense>

      <BoxCost />
      <Stack direction="row" spacing={1.5} sx={{ flexWrap: 'wrap', rowGap: 1.5 }}>
        <Button
          variant="contained"
          color="success"
          startIcon={<PlayArrow />}
          disabled={!canStart || powering || deleting}
          loading={starting}
          loadingPosition="start"
          onClick={() => void boxes.start()}
        >
          {starting ? STARTING : START_BOX}
        </Button>
        <Button
          variant="outlined"
          color="warning"
          startIcon={<Stop />}
          disabled={!canStop || powering || deleting}
          loading={stopping}
          loadingPosition="start"
          onClick={() => void boxes.stop()}
        >
          {stopping ? STOPPING : STOP_BOX}
        </Button>
        <Button
          variant="outlined"
          color="warning"
          startIcon={<RestartAlt />}
          disabled={resetting || deleting || powering}
          loading={resetting}
          loadingPosition="start"
          onClick={() => confirm('reset')}
          sx={{ ml: { sm: 'auto !important' } }}
        >
          {resetting ? RESETTING : RESET_BOX}
        </Button>
        <Button
          variant="outlined"
          color="error"
          startIcon={<Delete />}
          disabled={deleting || resetting || powering}
          loading={deleting}
          loadingPosition="start"
          onClick={() => confirm('delete')}
        >
          {deleting ? DELETING : DELETE_BOX}
        </Button>
      </Stack>

      <ConfirmBoxDialog
        open={confirming}
        action={action}
        subject={box.hostname}
        onCancel={() => setConfirming(false)}
        onConfirm={() => {
          setConfirming(false);
          void (action === 'reset' ? boxes.resetBox() : boxes.delete());
        }}
      />
    </Stack>
  );
});

type ReadinessProps = { box: BoxModel };

/**
 * What the box is doing: provisioning (with the base image build progress when it builds), preparing
 * (running, no VPN client yet), ready (with the ssh command), stopped or crashed.
 */
const Readiness = observer(function Readiness({ box }: ReadinessProps) {
  const { box: boxes } = useStores();
  const panel = (children: ReactNode, testId: string) => (
    <Paper
      variant="outlined"
      role="status"
      data-testid={testId}
      sx={{ p: 2, bgcolor: 'rgba(5, 7, 13, 0.6)', borderColor: 'divider' }}
    >
      {children}
    </Paper>
  );

  if (box.status === 'PROVISIONING') {
    const image = boxes.runtime?.image;
    const building = image?.state === 'building';
    return panel(
      <Stack spacing={1}>
        <Typography sx={{ fontWeight: 600 }}>
          {building ? buildingImage(image.percent) : PROVISIONING}
        </Typography>
        <LinearProgress
          variant={building ? 'determinate' : 'indeterminate'}
          value={building ? image.percent : undefined}
          aria-label={PROVISIONING}
        />
        {building && image.step && (
          <Typography variant="caption" color="text.secondary" sx={{ fontFamily: 'monospace' }}>
            {image.step}
          </Typography>
        )}
      </Stack>,
      'readiness-provisioning',
    );
  }
  if (box.status === 'RUNNING' && !boxes.vpnConnected) {
    return panel(
      <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
        <CircularProgress size={18} aria-hidden />
        <Box>
          <Typography sx={{ fontWeight: 700, color: 'warning.main' }}>{PREPARING}</Typography>
          <Typography variant="body2" color="text.secondary">
            {PREPARING_HINT}
          </Typography>
        </Box>
      </Stack>,
      'readiness-preparing',
    );
  }
  if (box.status === 'RUNNING') {
    return panel(
      <Stack spacing={1}>
        <Typography sx={{ fontWeight: 700, color: 'success.main' }}>{BOX_READY}</Typography>
        <Typography variant="body2" color="text.secondary">
          {READY_HINT}
        </Typography>
        <Box
          component="code"
          sx={{ fontFamily: 'monospace', color: 'primary.main', fontSize: '0.95rem', wordBreak: 'break-all' }}
        >
          {sshCommand(box.ip)}
        </Box>
      </Stack>,
      'readiness-ready',
    );
  }
  if (box.status === 'CRASHED') {
    return (
      <Alert severity="error" variant="outlined" data-testid="readiness-crashed">
        {CRASHED_TEXT}
      </Alert>
    );
  }
  return panel(<Typography color="text.secondary">{STOPPED_TEXT}</Typography>, 'readiness-stopped');
});

type FactProps = { label: string; value: string };

/** One labelled value of the box (usage). */
function Fact({ label, value }: FactProps) {
  return (
    <Box role="group" aria-label={label}>
      <Typography variant="overline" component="p" sx={{ color: 'text.secondary', lineHeight: 1.8 }}>
        {label}
      </Typography>
      <Typography sx={{ fontFamily: 'monospace', fontSize: '1rem' }}>{value}</Typography>
    </Box>
  );
}

type OpenPortsProps = { ports: Record<string, string> };

function OpenPorts({ ports }: OpenPortsProps) {
  const entries = Object.entries(ports).sort(([a], [b]) => Number(a) - Number(b));
  if (entries.length === 0) {
    return <Typography color="text.secondary">{NO_OPEN_PORTS}</Typography>;
  }
  return (
    <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
      {entries.map(([port, service]) => (
        <Chip
          key={port}
          size="small"
          variant="outlined"
          label={`${port}/${service}`}
          sx={{ fontFamily: 'monospace' }}
        />
      ))}
    </Stack>
  );
}
