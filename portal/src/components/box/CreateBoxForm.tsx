import { createBoxRequest } from '@exploit-grid/api/contracts';
import ExpandMore from '@mui/icons-material/ExpandMore';
import RocketLaunch from '@mui/icons-material/RocketLaunchOutlined';
import Button from '@mui/material/Button';
import Collapse from '@mui/material/Collapse';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { lazy, Suspense, useId, useState, type FormEvent } from 'react';
import { useStores } from '../../stores/StoresContext.tsx';
import { ADD_SSH_KEY, CREATE_BOX, CREATING_BOX, DEPLOY_TEXT, DEPLOY_TITLE } from '../../strings/box.ts';
import { Stack } from '../Stack.tsx';
import { BoxCost } from './BoxCost.tsx';

// The key field (a multiline text field) loads when the player first opens it.
const SshKeyField = lazy(async () => ({ default: (await import('./SshKeyField.tsx')).SshKeyField }));

export type CreateBoxFormProps = { disabled: boolean };

/**
 * No box yet: what deploying gives, an optional SSH public key (collapsed until asked for; sent only while
 * shown, checked against the contract first) and the Create button.
 */
export const CreateBoxForm = observer(function CreateBoxForm({ disabled }: CreateBoxFormProps) {
  const { box: boxes } = useStores();
  const [keyOpen, setKeyOpen] = useState(false);
  // Once opened, the field stays mounted so that the panel can close with its transition.
  const [keyShown, setKeyShown] = useState(false);
  if (keyOpen && !keyShown) setKeyShown(true);
  const [key, setKey] = useState('');
  const [keyError, setKeyError] = useState<string | null>(null);
  const keyPanel = useId();
  const pending = boxes.isPending('create');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = keyOpen ? key.trim() : '';
    const parsed = createBoxRequest.safeParse(trimmed ? { sshPublicKey: trimmed } : {});
    if (!parsed.success) {
      setKeyError(parsed.error.issues[0]?.message ?? null);
      return;
    }
    setKeyError(null);
    void boxes.create(parsed.data);
  };

  return (
    <Stack component="form" noValidate spacing={2} onSubmit={submit} sx={{ alignItems: 'flex-start' }}>
      <Typography variant="h6" component="h3" sx={{ fontSize: '1.05rem' }}>
        {DEPLOY_TITLE}
      </Typography>
      <Typography color="text.secondary">{DEPLOY_TEXT}</Typography>
      <BoxCost />
      <Button
        size="small"
        color="inherit"
        aria-expanded={keyOpen}
        aria-controls={keyPanel}
        onClick={() => setKeyOpen((open) => !open)}
        endIcon={
          <ExpandMore
            sx={{ transform: keyOpen ? 'rotate(180deg)' : 'none', transition: 'transform 150ms' }}
          />
        }
        sx={{ color: 'text.secondary' }}
      >
        {ADD_SSH_KEY}
      </Button>
      <Collapse in={keyOpen} id={keyPanel} sx={{ width: '100%' }}>
        {keyShown && (
          <Suspense fallback={null}>
            <SshKeyField
              value={key}
              error={keyError}
              onChange={(value) => {
                setKey(value);
                setKeyError(null);
              }}
            />
          </Suspense>
        )}
      </Collapse>
      <Button
        type="submit"
        variant="contained"
        size="large"
        startIcon={<RocketLaunch />}
        disabled={disabled || pending}
        loading={pending}
        loadingPosition="start"
      >
        {pending ? CREATING_BOX : CREATE_BOX}
      </Button>
    </Stack>
  );
});
