import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Paper from '@mui/material/Paper';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import ChatIcon from '@mui/icons-material/Chat';
import { observer } from 'mobx-react-lite';
import { useState } from 'react';
import type { ChatStore } from '../../stores/ChatStore.ts';
import type { GridStore } from '../../stores/GridStore.ts';
import {
  BACK_TO_CHATS,
  CHAT_PANEL,
  COMING_SOON,
  HIDE_CHAT,
  NO_BLOCKED_USERS,
  NO_GLOBAL_MESSAGES,
  SHOW_CHAT,
  TAB_AI,
  TAB_BLOCKED,
  TAB_GLOBAL,
  TAB_PRIVATE,
  UNBLOCK,
} from '../../strings/chat.ts';
import { ChatList } from './ChatList.tsx';
import { Conversation } from './Conversation.tsx';
import { MessageInput } from './MessageInput.tsx';
import { MessageList } from './MessageList.tsx';

export type ChatPanelProps = {
  chat: ChatStore;
  grid: GridStore;
  /** In the page's flow, full width, always shown (phones), instead of floating bottom left over the globe. */
  docked?: boolean;
};

type PanelTab = 'global' | 'private' | 'blocked';

/**
 * The Grid's chat panel (core-app section 2), bottom left, hidden or shown with its button: the global channel,
 * the private chats, the blocked operators (AI arrives with the assistant).
 */
export const ChatPanel = observer(function ChatPanel({ chat, grid, docked = false }: ChatPanelProps) {
  const [hidden, setHidden] = useState(false);
  const shown = docked || !hidden;
  const [tab, setTab] = useState<PanelTab>('global');
  const choose = (next: PanelTab) => {
    setTab(next);
    if (next === 'private') void chat.refresh();
  };
  return (
    <Box
      sx={
        docked
          ? { width: '100%' }
          : {
              position: 'absolute',
              bottom: 16,
              left: 16,
              zIndex: 3,
              width: { xs: 'calc(100% - 32px)', sm: 360 },
            }
      }
    >
      {shown && (
        <Paper
          component="section"
          aria-label={CHAT_PANEL}
          elevation={6}
          sx={{
            display: 'flex',
            flexDirection: 'column',
            height: docked ? 'min(420px, 70vh)' : 380,
            mb: docked ? 0 : 1,
            bgcolor: 'rgba(8, 14, 30, 0.92)',
          }}
        >
          <Tabs
            value={tab}
            onChange={(_event, value: PanelTab) => choose(value)}
            variant="fullWidth"
            sx={{ minHeight: 40 }}
          >
            <Tab value="global" label={TAB_GLOBAL} sx={{ minHeight: 40 }} />
            <Tab value="private" label={TAB_PRIVATE} sx={{ minHeight: 40 }} />
            <Tab value="blocked" label={TAB_BLOCKED} sx={{ minHeight: 40 }} />
            <Tab value="ai" label={TAB_AI} title={COMING_SOON} disabled sx={{ minHeight: 40 }} />
          </Tabs>
          {tab === 'global' && (
            <>
              <MessageList
                label={TAB_GLOBAL}
                messages={chat.visibleGlobalMessages}
                empty={NO_GLOBAL_MESSAGES}
                onRetry={(tempId) => chat.retry(tempId)}
                onLoadOlder={() => chat.loadOlder()}
                hasOlder={chat.hasOlderGlobal}
                loadingOlder={chat.loadingOlder}
              />
              <MessageInput onSend={(text) => chat.sendGlobal(text)} />
            </>
          )}
          {tab === 'private' &&
            (chat.open ? (
              <>
                <Box sx={{ px: 1 }}>
                  <Button size="small" onClick={() => chat.closeChat()}>
                    {BACK_TO_CHATS}
                  </Button>
                </Box>
                <Conversation chat={chat} />
              </>
            ) : (
              <ChatList chat={chat} />
            ))}
          {tab === 'blocked' && <BlockedList grid={grid} />}
        </Paper>
      )}
      {!docked && (
        <Button
          variant="contained"
          size="small"
          startIcon={<ChatIcon />}
          aria-expanded={shown}
          onClick={() => setHidden(shown)}
        >
          {shown ? HIDE_CHAT : SHOW_CHAT}
        </Button>
      )}
    </Box>
  );
});

const BlockedList = observer(function BlockedList({ grid }: { grid: GridStore }) {
  if (grid.blockedUsers.length === 0)
    return (
      <Typography variant="body2" color="text.secondary" sx={{ p: 1.5 }}>
        {NO_BLOCKED_USERS}
      </Typography>
    );
  return (
    <List dense aria-label={TAB_BLOCKED} sx={{ overflowY: 'auto' }}>
      {grid.blockedUsers.map((user) => (
        <ListItem
          key={user.id}
          secondaryAction={
            <Button size="small" onClick={() => grid.unblock(user.id)}>
              {UNBLOCK}
            </Button>
          }
        >
          <ListItemText primary={user.handle} />
        </ListItem>
      ))}
    </List>
  );
});
