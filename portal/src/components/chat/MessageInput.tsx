import Button from '@mui/material/Button';
import TextField from '@mui/material/TextField';
import { useState, type KeyboardEvent } from 'react';
import type { SendResult } from '../../stores/ChatStore.ts';
import { MESSAGE_LABEL, MESSAGE_PLACEHOLDER, SEND } from '../../strings/chat.ts';
import { Stack } from '../Stack.tsx';

export type MessageInputProps = { onSend: (text: string) => SendResult };

/**
 * The message box (core-app section 5): Enter sends, Shift+Enter starts a new line. A message the rule
 * refuses stays, its reason shown under it; one sent clears the box.
 */
export function MessageInput({ onSend }: MessageInputProps) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const send = () => {
    const result = onSend(text);
    if (result.sent) {
      setText('');
      setError(null);
    } else {
      setError(result.error);
    }
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };
  return (
    <Stack direction="row" spacing={1} sx={{ p: 1, alignItems: 'flex-start' }}>
      <TextField
        label={MESSAGE_LABEL}
        placeholder={MESSAGE_PLACEHOLDER}
        size="small"
        fullWidth
        multiline
        maxRows={4}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          if (error) setError(null);
        }}
        onKeyDown={onKeyDown}
        error={error !== null}
        helperText={error ?? undefined}
      />
      <Button variant="contained" onClick={send} sx={{ mt: 0.25 }}>
        {SEND}
      </Button>
    </Stack>
  );
}
