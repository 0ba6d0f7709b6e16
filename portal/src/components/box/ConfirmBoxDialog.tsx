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
  /** What it is about: the box's hostname, or the snapshot's name. */
  subject: string;
  onCancel: () => void;
  onConfirm: () => void;
  /**
   * What is confirmed: the box's deletion (the default; core-app section 5 says it is permanent) or reset,
   * or else what `texts` say (a snapshot's restore or deletion).
   */
  action?: 'delete' | 'reset';
  texts?: ConfirmTexts;
};

export type ConfirmTexts = { title: string; text: string; confirm: string };

const TEXTS: Record<'delete' | 'reset', ConfirmTexts> = {
  delete: { title: DELETE_DIALOG_TITLE, text: DELETE_DIALOG_TEXT, confirm: CONFIRM_DELETE },
  reset: { title: RESET_DIALOG_TITLE, text: RESET_DIALOG_TEXT, confirm: CONFIRM_RESET },
};

/** Box deletion and reset (and a snapshot's restore and deletion) need confirmation; the dialog says what is lost. */
export function ConfirmBoxDialog({
  open,
  subject,
  onCancel,
  onConfirm,
  action = 'delete',
  texts: given,
}: ConfirmBoxDialogProps) {
  const titleId = useId();
  const textId = useId();
  const texts = given ?? TEXTS[action];
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
