import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import { stripTags } from '@exploit-grid/api/contracts';
import { observer } from 'mobx-react-lite';
import type { ChatStore } from '../../stores/ChatStore.ts';
import { NO_PRIVATE_CHATS, TAB_ACTIVE } from '../../strings/chat.ts';

export type ChatListProps = { chat: ChatStore };

/** The active private chats, each with its partner and last message; picking one opens it. */
export const ChatList = observer(function ChatList({ chat }: ChatListProps) {
  if (chat.chats.length === 0)
    return (
      <Typography variant="body2" color="text.secondary" sx={{ p: 1.5 }}>
        {NO_PRIVATE_CHATS}
      </Typography>
    );
  return (
    <List dense aria-label={TAB_ACTIVE} sx={{ overflowY: 'auto' }}>
      {chat.chats.map((item) => (
        <ListItem key={item.id} disablePadding>
          <ListItemButton
            selected={chat.open?.chatId === item.id}
            onClick={() => void chat.openChat(item.id)}
          >
            <ListItemText
              primary={chat.partnerOf(item).handle}
              secondary={item.messages[0] ? stripTags(item.messages[0].content) : null}
              slotProps={{ secondary: { noWrap: true } }}
            />
          </ListItemButton>
        </ListItem>
      ))}
    </List>
  );
});
