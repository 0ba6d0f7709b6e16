import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import { useId } from 'react';
import {
  CANCEL,
  CONFIRM_DELETE,
  CONFIRM_DELETE_SNAPSHOT,
  CONFIRM_RESET,
  CONFIRM_RESTORE,
  DELETE_DIALOG_TEXT,
  DELETE_DIALOG_TITLE,
  DELETE_SNAPSHOT_DIALOG_TEXT,
  DELETE_SNAPSHOT_DIALOG_TITLE,
  RESET_DIALOG_TEXT,
  RESET_DIALOG_TITLE,
  RESTORE_DIALOG_TEXT,
  RESTORE_DIALOG_TITLE,
} from '../../strings/box.ts';

export type ConfirmBoxDialogProps = {
  open: boolean;
  /** What it is about: the box's hostname, or the snapshot's name. */
  subject: string;
  onCancel: () => void;
  onConfirm: () => void;
  /**
   * What is confirmed: deletion (the default; core-app section 5 says it is permanent), a reset, or a
   * snapshot's restore or deletion.
   */
  action?: ConfirmAction;
};

export type ConfirmAction = 'delete' | 'reset' | 'restoreSnapshot' | 'deleteSnapshot';

const TEXTS: Record<ConfirmAction, { title: string; text: string; confirm: string }> = {
  delete: { title: DELETE_DIALOG_TITLE, text: DELETE_DIALOG_TEXT, confirm: CONFIRM_DELETE },
  reset: { title: RESET_DIALOG_TITLE, text: RESET_DIALOG_TEXT, confirm: CONFIRM_RESET },
  restoreSnapshot: { title: RESTORE_DIALOG_TITLE, text: RESTORE_DIALOG_TEXT, confirm: CONFIRM_RESTORE },
  deleteSnapshot: {
    title: DELETE_SNAPSHOT_DIALOG_TITLE,
    text: DELETE_SNAPSHOT_DIALOG_TEXT,
    confirm: CONFIRM_DELETE_SNAPSHOT,
  },
};

/** Box deletion and reset, a snapshot's restore and deletion need confirmation; the dialog says what is lost. */
export function ConfirmBoxDialog({
  open,
  subject,
  onCancel,
  onConfirm,
  action = 'delete',
}: ConfirmBoxDialogProps) {
  const titleId = useId();
  const textId = useId();
  const texts = TEXTS[action];
  return (
    <Dialog open={open} onClose={onCancel} aria-labelledby={titleId} aria-describedby={textId}>
      <DialogTitle id={titleId}>{texts.title}</DialogTitle>
      <DialogContent>
        <DialogContentText id={textId}>{texts.text}</DialogContentText>
        <DialogContentText sx={{ mt: 1.5, fontFamily: 'monospace', color: 'text.primary' }}>
          {subject}
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel} color="inherit" autoFocus>
          {CANCEL}
        </Button>
        <Button onClick={onConfirm} color="error" variant="contained">
          {texts.confirm}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
