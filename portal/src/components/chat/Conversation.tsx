import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import { observer } from 'mobx-react-lite';
import type { ChatStore } from '../../stores/ChatStore.ts';
import { MESSAGES_LOADING, NO_MESSAGES, chatWith } from '../../strings/chat.ts';
import { MessageInput } from './MessageInput.tsx';
import { MessageList } from './MessageList.tsx';

export type ConversationProps = { chat: ChatStore };

/** The private chat open now: its messages and the message box. */
export const Conversation = observer(function Conversation({ chat }: ConversationProps) {
  const open = chat.open;
  if (!open) return null;
  const info = chat.openChatInfo;
  const label = chatWith(info ? chat.partnerOf(info).handle : '');
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', flex: 1, minHeight: 0 }}>
      {open.loading ? (
        <Box sx={{ p: 2, textAlign: 'center' }}>
          <CircularProgress size={24} aria-label={MESSAGES_LOADING} />
        </Box>
      ) : (
        <MessageList
          label={label}
          messages={chat.messagesOf(open.chatId)}
          empty={NO_MESSAGES}
          onRetry={(tempId) => chat.retry(tempId)}
          onLoadOlder={() => void chat.loadOlderPrivate()}
          hasOlder={chat.olderPrivate.has(open.chatId)}
          loadingOlder={chat.loadingOlderPrivate}
        />
      )}
      <MessageInput onSend={(text) => chat.sendPrivate(open.chatId, text)} />
    </Box>
  );
});
