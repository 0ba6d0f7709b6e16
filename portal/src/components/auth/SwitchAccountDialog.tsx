import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import { STAY_SIGNED_IN, SWITCH_ACCOUNT } from '../../strings/auth.ts';

export type SwitchAccountDialogProps = {
  /** What it asks: who this browser is signed in as. */
  text: string;
  onStay: () => void;
  onSwitch: () => void;
};

/**
 * Asks a signed-in operator landing from a social sign-in whether to switch accounts. A chunk of its own
 * (the Dialog and Modal): the sign-in page loads it only when it has to ask.
 */
export default function SwitchAccountDialog({ text, onStay, onSwitch }: SwitchAccountDialogProps) {
  return (
    <Dialog open onClose={onStay} aria-labelledby="switch-account-text">
      <DialogContent>
        <DialogContentText id="switch-account-text">{text}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onStay} autoFocus>
          {STAY_SIGNED_IN}
        </Button>
        <Button variant="contained" onClick={onSwitch}>
          {SWITCH_ACCOUNT}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
