import { SNAPSHOT_NAME_MAX, type BoxSnapshot } from '@exploit-grid/api/contracts';
import Delete from '@mui/icons-material/DeleteOutlined';
import Restore from '@mui/icons-material/Restore';
import SaveAlt from '@mui/icons-material/SaveAlt';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useEffect, useState, type FormEvent } from 'react';
import { snapshotStoreOf } from '../../stores/SnapshotStore.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import { SNAPSHOTS_TITLE } from '../../strings/box.ts';
import {
  CONFIRM_DELETE_SNAPSHOT,
  CONFIRM_RESTORE,
  DELETE_SNAPSHOT,
  DELETE_SNAPSHOT_DIALOG_TEXT,
  DELETE_SNAPSHOT_DIALOG_TITLE,
  NO_SNAPSHOTS,
  RESTORE_SNAPSHOT,
  RESTORE_DIALOG_TEXT,
  RESTORE_DIALOG_TITLE,
  SNAPSHOTS_FULL,
  SNAPSHOT_NAME,
  TAKE_SNAPSHOT,
  TAKING_SNAPSHOT,
  deleteSnapshotLabel,
  formatBytes,
  restoreSnapshotLabel,
  snapshotSlotsUsed,
} from '../../strings/snapshots.ts';
import { Stack } from '../Stack.tsx';
import { ConfirmBoxDialog, type ConfirmTexts } from './ConfirmBoxDialog.tsx';

type SnapshotAction = 'restore' | 'delete';
const TEXTS: Record<SnapshotAction, ConfirmTexts> = {
  restore: { title: RESTORE_DIALOG_TITLE, text: RESTORE_DIALOG_TEXT, confirm: CONFIRM_RESTORE },
  delete: {
    title: DELETE_SNAPSHOT_DIALOG_TITLE,
    text: DELETE_SNAPSHOT_DIALOG_TEXT,
    confirm: CONFIRM_DELETE_SNAPSHOT,
  },
};

/**
 * The snapshots of a box whose tier has slots: the list with Restore and Delete (each confirmed) and a name
 * field to take one.
 */
export const SnapshotManager = observer(function SnapshotManager() {
  const root = useStores();
  const snapshots = snapshotStoreOf(root);
  const [name, setName] = useState('');
  // Kept while the dialog fades out, so its texts do not change as it closes.
  const [confirm, setConfirm] = useState<{ action: SnapshotAction; snapshot: BoxSnapshot } | null>(null);
  const [open, setOpen] = useState(false);
  const boxId = root.auth.box?.id;

  // Loaded once for each box.
  useEffect(() => {
    if (boxId) void snapshots.load();
  }, [snapshots, boxId]);

  const taking = snapshots.isPending('take');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return;
    void snapshots.take(trimmed).then((ok) => ok && setName(''));
  };
  const ask = (action: SnapshotAction, snapshot: BoxSnapshot) => {
    setConfirm({ action, snapshot });
    setOpen(true);
  };

  return (
    <>
      <Stack spacing={1.5}>
        {snapshots.status === 'ready' && (
          <Typography variant="caption" color="text.secondary" data-testid="snapshot-slots">
            {snapshotSlotsUsed(snapshots.snapshots.length, snapshots.slots)}
          </Typography>
        )}
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
                    onClick={() => ask('restore', snapshot)}
                  >
                    {RESTORE_SNAPSHOT}
                  </Button>
                  <Button
                    size="small"
                    color="error"
                    startIcon={<Delete />}
                    aria-label={deleteSnapshotLabel(snapshot.name)}
                    loading={snapshots.isPending(`delete:${snapshot.id}`)}
                    onClick={() => ask('delete', snapshot)}
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
      <ConfirmBoxDialog
        open={open}
        texts={TEXTS[confirm?.action ?? 'restore']}
        subject={confirm?.snapshot.name ?? ''}
        onCancel={() => setOpen(false)}
        onConfirm={() => {
          setOpen(false);
          if (!confirm) return;
          void (confirm.action === 'restore'
            ? snapshots.restore(confirm.snapshot)
            : snapshots.remove(confirm.snapshot));
        }}
      />
    </>
  );
});
