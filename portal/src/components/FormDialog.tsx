import CloseIcon from '@mui/icons-material/Close';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import IconButton from '@mui/material/IconButton';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import { useId, type FormEvent, type ReactNode } from 'react';

export interface FormDialogProps {
  open: boolean;
  title: string;
  /** Under the title (the job applied for). */
  subtitle?: ReactNode;
  maxWidth: 'sm' | 'md';
  /** While a call is under way: nothing closes or submits the form twice. */
  busy: boolean;
  onClose: () => void;
  onSubmit: (event: FormEvent) => void;
  submitLabel: string;
  cancelLabel: string;
  closeLabel: string;
  children: ReactNode;
}

/**
 * A dialog that is a form (the application, the vulnerability report): its title with a close button, the
 * fields, Cancel and the submit button; full screen on phones. The form is the dialog's paper, so Enter in a
 * field submits it and the browser's own validation stays off (the page checks and says why).
 */
export function FormDialog({
  open,
  title,
  subtitle,
  maxWidth,
  busy,
  onClose,
  onSubmit,
  submitLabel,
  cancelLabel,
  closeLabel,
  children,
}: FormDialogProps) {
  const titleId = useId();
  const fullScreen = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'));
  return (
    <Dialog
      open={open}
      onClose={onClose}
      aria-labelledby={titleId}
      fullScreen={fullScreen}
      maxWidth={maxWidth}
      fullWidth
      slotProps={{ paper: { component: 'form', noValidate: true, onSubmit } as object }}
    >
      <DialogTitle id={titleId} sx={{ pr: 7 }}>
        {title}
        {subtitle}
        <IconButton
          aria-label={closeLabel}
          onClick={onClose}
          disabled={busy}
          sx={{ position: 'absolute', right: 12, top: 12 }}
        >
          <CloseIcon />
        </IconButton>
      </DialogTitle>
      <DialogContent dividers>{children}</DialogContent>
      <DialogActions sx={{ px: 3, py: 2 }}>
        <Button onClick={onClose} disabled={busy}>
          {cancelLabel}
        </Button>
        <Button type="submit" variant="contained" disabled={busy}>
          {submitLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
