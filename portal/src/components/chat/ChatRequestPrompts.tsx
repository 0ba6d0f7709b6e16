import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import type { ChatStore } from '../../stores/ChatStore.ts';
import { ACCEPT, CHAT_REQUEST_TITLE, DECLINE, wantsToChat } from '../../strings/chat.ts';
import { GridCard } from '../grid/GridCard.tsx';
import { Stack } from '../Stack.tsx';

export type ChatRequestPromptsProps = { chat: ChatStore };

/**
 * Chat requests that came in during the last 30 s (core-app section 9), on the Grid. A request not answered
 * here waits in the Requests tab of /chats.
 */
export const ChatRequestPrompts = observer(function ChatRequestPrompts({ chat }: ChatRequestPromptsProps) {
  // Always there, so that a screen reader announces a request as it arrives.
  return (
    <Stack spacing={1} aria-live="polite">
      {chat.requestPrompts.map((prompt) => (
        <GridCard key={prompt.chatId} title={CHAT_REQUEST_TITLE}>
          <Typography variant="body2">{wantsToChat(prompt.initiator.handle)}</Typography>
          <Stack direction="row" spacing={1} sx={{ mt: 1.5 }}>
            <Button variant="contained" size="small" onClick={() => chat.respond(prompt.chatId, true)}>
              {ACCEPT}
            </Button>
            <Button size="small" color="inherit" onClick={() => chat.respond(prompt.chatId, false)}>
              {DECLINE}
            </Button>
          </Stack>
        </GridCard>
      ))}
    </Stack>
  );
});
