import { SNAPSHOT_NAME_MAX, TIER_PERKS, type BoxSnapshot } from '@exploit-grid/api/contracts';
import Delete from '@mui/icons-material/DeleteOutlined';
import Restore from '@mui/icons-material/Restore';
import SaveAlt from '@mui/icons-material/SaveAlt';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Skeleton from '@mui/material/Skeleton';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useEffect, useState, type FormEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  DELETE_SNAPSHOT,
  NO_SNAPSHOTS,
  RESTORE_SNAPSHOT,
  SEE_PLANS,
  SNAPSHOTS_FULL,
  SNAPSHOTS_INTRO,
  SNAPSHOTS_NOT_IN_TIER,
  SNAPSHOTS_TITLE,
  SNAPSHOT_NAME,
  TAKE_SNAPSHOT,
  TAKING_SNAPSHOT,
  deleteSnapshotLabel,
  formatBytes,
  restoreSnapshotLabel,
  snapshotSlotsUsed,
} from '../../strings/box.ts';
import { Stack } from '../Stack.tsx';
import { ConfirmBoxDialog, type ConfirmAction } from './ConfirmBoxDialog.tsx';

/**
 * The box's snapshots (the tier's slots): what they are, the list with Restore and Delete (each confirmed),
 * and a name field to take one. BASIC has no slots: it says which plans have them.
 */
export const BoxSnapshots = observer(function BoxSnapshots() {
  const { snapshots, auth } = useStores();
  const tier = auth.user?.subscription.tier ?? 'BASIC';
  const slots = snapshots.status === 'ready' ? snapshots.slots : TIER_PERKS[tier].snapshotSlots;
  const [name, setName] = useState('');
  // Kept while the dialog fades out, so its texts do not change as it closes.
  const [confirm, setConfirm] = useState<{ action: ConfirmAction; snapshot: BoxSnapshot } | null>(null);
  const [open, setOpen] = useState(false);
  const boxId = auth.box?.id;

  // Loaded once for each box (and again when the tier starts or stops having slots).
  const tierHasSlots = TIER_PERKS[tier].snapshotSlots > 0;
  useEffect(() => {
    if (boxId && tierHasSlots) void snapshots.load();
  }, [snapshots, boxId, tierHasSlots]);

  const taking = snapshots.isPending('take');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return;
    void snapshots.take(trimmed).then((ok) => ok && setName(''));
  };
  const ask = (action: ConfirmAction, snapshot: BoxSnapshot) => {
    setConfirm({ action, snapshot });
    setOpen(true);
  };

  return (
    <Box role="group" aria-label={SNAPSHOTS_TITLE} data-testid="box-snapshots">
      <Stack direction="row" spacing={1} sx={{ alignItems: 'baseline', flexWrap: 'wrap' }}>
        <Typography variant="overline" component="p" sx={{ color: 'text.secondary', lineHeight: 1.8 }}>
          {SNAPSHOTS_TITLE}
        </Typography>
        {slots > 0 && snapshots.status === 'ready' && (
          <Typography variant="caption" color="text.secondary" data-testid="snapshot-slots">
            {snapshotSlotsUsed(snapshots.snapshots.length, slots)}
          </Typography>
        )}
      </Stack>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
        {SNAPSHOTS_INTRO}
      </Typography>
      {slots === 0 ? (
        <Alert severity="info" variant="outlined">
          {SNAPSHOTS_NOT_IN_TIER}{' '}
          <Link component={RouterLink} to="/plans">
            {SEE_PLANS}
          </Link>
        </Alert>
      ) : (
        <Stack spacing={1.5}>
          {snapshots.error && (
            <Alert severity="error" onClose={() => snapshots.clearError()} data-testid="snapshot-error">
              {snapshots.error.message}
              {snapshots.error.detail ? ` ${snapshots.error.detail}` : ''}
            </Alert>
          )}
          {snapshots.status === 'loading' && snapshots.snapshots.length === 0 ? (
            <Skeleton variant="rounded" height={40} />
          ) : snapshots.snapshots.length === 0 ? (
            <Typography variant="body2" color="text.secondary">
              {NO_SNAPSHOTS}
            </Typography>
          ) : (
            <Box component="ul" aria-label={SNAPSHOTS_TITLE} sx={{ listStyle: 'none', m: 0, p: 0 }}>
              {snapshots.snapshots.map((snapshot) => (
                <Box
                  component="li"
                  key={snapshot.id}
                  sx={{
                    display: 'flex',
                    flexWrap: 'wrap',
                    alignItems: 'center',
                    columnGap: 1.5,
                    rowGap: 0.5,
                    py: 0.75,
                    borderBottom: 1,
                    borderColor: 'divider',
                  }}
                >
                  <Typography sx={{ fontFamily: 'monospace', fontWeight: 700, wordBreak: 'break-word' }}>
                    {snapshot.name}
                  </Typography>
                  <Typography variant="caption" color="text.secondary" sx={{ flexGrow: 1 }}>
                    {new Date(snapshot.createdAt).toLocaleString()} · {formatBytes(snapshot.sizeBytes)}
                  </Typography>
                  <Stack direction="row" spacing={1}>
                    <Button
                      size="small"
                      variant="outlined"
                      startIcon={<Restore />}
                      aria-label={restoreSnapshotLabel(snapshot.name)}
                      loading={snapshots.isPending(`restore:${snapshot.id}`)}
                      onClick={() => ask('restoreSnapshot', snapshot)}
                    >
                      {RESTORE_SNAPSHOT}
                    </Button>
                    <Button
                      size="small"
                      color="error"
                      startIcon={<Delete />}
                      aria-label={deleteSnapshotLabel(snapshot.name)}
                      loading={snapshots.isPending(`delete:${snapshot.id}`)}
                      onClick={() => ask('deleteSnapshot', snapshot)}
                    >
                      {DELETE_SNAPSHOT}
                    </Button>
                  </Stack>
                </Box>
              ))}
            </Box>
          )}
          {snapshots.status === 'ready' && snapshots.full ? (
            <Typography variant="body2" color="text.secondary">
              {SNAPSHOTS_FULL}
            </Typography>
          ) : (
            <Box
              component="form"
              onSubmit={submit}
              sx={{
                display: 'flex',
                gap: 1,
                flexWrap: { xs: 'wrap', sm: 'nowrap' },
                alignItems: 'flex-start',
              }}
            >
              <TextField
                size="small"
                label={SNAPSHOT_NAME}
                value={name}
                onChange={(e) => setName(e.target.value)}
                slotProps={{ htmlInput: { maxLength: SNAPSHOT_NAME_MAX } }}
                sx={{ flexGrow: 1, minWidth: 0, width: { xs: '100%', sm: 'auto' } }}
              />
              <Button
                type="submit"
                variant="outlined"
                startIcon={<SaveAlt />}
                disabled={!name.trim() || snapshots.status !== 'ready'}
                loading={taking}
                loadingPosition="start"
                sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}
              >
                {taking ? TAKING_SNAPSHOT : TAKE_SNAPSHOT}
              </Button>
            </Box>
          )}
        </Stack>
      )}
      <ConfirmBoxDialog
        open={open}
        action={confirm?.action ?? 'restoreSnapshot'}
        subject={confirm?.snapshot.name ?? ''}
        onCancel={() => setOpen(false)}
        onConfirm={() => {
          setOpen(false);
          if (!confirm) return;
          void (confirm.action === 'restoreSnapshot'
            ? snapshots.restore(confirm.snapshot)
            : snapshots.remove(confirm.snapshot));
        }}
      />
    </Box>
  );
});
