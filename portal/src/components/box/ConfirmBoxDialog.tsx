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
  CONFIRM_RESET,
  DELETE_DIALOG_TEXT,
  DELETE_DIALOG_TITLE,
  RESET_DIALOG_TEXT,
  RESET_DIALOG_TITLE,
} from '../../strings/box.ts';

export type ConfirmBoxDialogProps = {
  open: boolean;
  hostname: string;
  onCancel: () => void;
  onConfirm: () => void;
  /** What is confirmed: deletion (the default; core-app section 5 says it is permanent) or a reset. */
  action?: 'delete' | 'reset';
};

const TEXTS = {
  delete: { title: DELETE_DIALOG_TITLE, text: DELETE_DIALOG_TEXT, confirm: CONFIRM_DELETE },
  reset: { title: RESET_DIALOG_TITLE, text: RESET_DIALOG_TEXT, confirm: CONFIRM_RESET },
};

/** Box deletion and reset need confirmation; the dialog says what is lost. */
export function ConfirmBoxDialog({
  open,
  hostname,
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
          {hostname}
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
