import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import { useId } from 'react';
import { CANCEL, CONFIRM_DELETE, DELETE_DIALOG_TEXT, DELETE_DIALOG_TITLE } from '../../strings/box.ts';

export type DeleteBoxDialogProps = {
  open: boolean;
  hostname: string;
  onCancel: () => void;
  onConfirm: () => void;
};

/** Box deletion needs confirmation (core-app section 5); the dialog says it is permanent. */
export function DeleteBoxDialog({ open, hostname, onCancel, onConfirm }: DeleteBoxDialogProps) {
  const titleId = useId();
  const textId = useId();
  return (
    <Dialog open={open} onClose={onCancel} aria-labelledby={titleId} aria-describedby={textId}>
      <DialogTitle id={titleId}>{DELETE_DIALOG_TITLE}</DialogTitle>
      <DialogContent>
        <DialogContentText id={textId}>{DELETE_DIALOG_TEXT}</DialogContentText>
        <DialogContentText sx={{ mt: 1.5, fontFamily: 'monospace', color: 'text.primary' }}>
          {hostname}
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel} color="inherit" autoFocus>
          {CANCEL}
        </Button>
        <Button onClick={onConfirm} color="error" variant="contained">
          {CONFIRM_DELETE}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
