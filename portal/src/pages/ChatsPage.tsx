import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Paper from '@mui/material/Paper';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useEffect, useState } from 'react';
import { ChatList } from '../components/chat/ChatList.tsx';
import { Conversation } from '../components/chat/Conversation.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { Stack } from '../components/Stack.tsx';
import type { ChatStore } from '../stores/ChatStore.ts';
import { useStores } from '../stores/StoresContext.tsx';
import {
  ACCEPT,
  AI_COMING,
  CHATS_DESCRIPTION,
  CHATS_TITLE,
  DECLINE,
  NO_REQUESTS,
  SELECT_CHAT,
  TAB_ACTIVE,
  TAB_AI,
  TAB_REQUESTS,
  chatWith,
  waitingFor,
  wantsToChat,
} from '../strings/chat.ts';

export type ChatsPageProps = Record<string, never>;

type ChatsTab = 'active' | 'requests' | 'ai';

/**
 * Chats (core-app section 2 "Chats /chats"): on the left the active chats, the requests (accept or decline)
 * and the AI assistant (coming); on the right the chat picked, or a prompt to pick one. Both lists load on
 * every visit; the open chat closes on leave.
 */
export const ChatsPage = observer(function ChatsPage(_props: ChatsPageProps) {
  usePageMeta({ title: CHATS_TITLE, description: CHATS_DESCRIPTION });
  const { chat } = useStores();
  const [tab, setTab] = useState<ChatsTab>('active');

  useEffect(() => {
    void chat.refresh();
    return () => chat.closeChat();
  }, [chat]);

  const info = chat.openChatInfo;
  return (
    <Box sx={{ maxWidth: 1200, mx: 'auto' }}>
      <Typography variant="h4" component="h1" sx={{ mb: 4, fontSize: { xs: '1.6rem', md: '2.2rem' } }}>
        {CHATS_TITLE}
      </Typography>
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ minHeight: 480 }}>
        <Paper
          variant="outlined"
          sx={{ width: { md: 320 }, flexShrink: 0, bgcolor: 'rgba(11, 17, 32, 0.8)' }}
        >
          <Tabs value={tab} onChange={(_event, value: ChatsTab) => setTab(value)} variant="fullWidth">
            <Tab value="active" label={TAB_ACTIVE} />
            <Tab
              value="requests"
              label={
                chat.incomingRequests.length
                  ? `${TAB_REQUESTS} (${chat.incomingRequests.length})`
                  : TAB_REQUESTS
              }
            />
            <Tab value="ai" label={TAB_AI} />
          </Tabs>
          {tab === 'active' && <ChatList chat={chat} />}
          {tab === 'requests' && <Requests chat={chat} />}
          {tab === 'ai' && (
            <Typography variant="body2" color="text.secondary" sx={{ p: 2 }}>
              {AI_COMING}
            </Typography>
          )}
        </Paper>
        <Paper
          component="section"
          aria-label={info ? chatWith(chat.partnerOf(info).handle) : CHATS_TITLE}
          variant="outlined"
          sx={{
            flex: 1,
            display: 'flex',
            flexDirection: 'column',
            // A window of its own: the messages scroll inside it, the newest in view.
            height: { xs: 'max(420px, 70vh)', md: 'max(480px, calc(100vh - 220px))' },
            bgcolor: 'rgba(11, 17, 32, 0.8)',
          }}
        >
          {tab === 'ai' ? (
            <Typography color="text.secondary" sx={{ m: 'auto', p: 3 }}>
              {AI_COMING}
            </Typography>
          ) : chat.open ? (
            <>
              {info && (
                <Typography variant="h6" component="h2" sx={{ px: 2, pt: 1.5 }}>
                  {chat.partnerOf(info).handle}
                </Typography>
              )}
              <Conversation chat={chat} />
            </>
          ) : (
            <Typography color="text.secondary" sx={{ m: 'auto', p: 3 }}>
              {SELECT_CHAT}
            </Typography>
          )}
        </Paper>
      </Stack>
    </Box>
  );
});

const Requests = observer(function Requests({ chat }: { chat: ChatStore }) {
  if (chat.requests.length === 0)
    return (
      <Typography variant="body2" color="text.secondary" sx={{ p: 2 }}>
        {NO_REQUESTS}
      </Typography>
    );
  return (
    <List aria-label={TAB_REQUESTS}>
      {chat.requests.map((request) => {
        const incoming = request.participant.id === chat.me;
        return (
          <ListItem key={request.id} sx={{ flexWrap: 'wrap', gap: 1 }}>
            <ListItemText
              primary={chat.partnerOf(request).handle}
              secondary={
                incoming ? wantsToChat(request.initiator.handle) : waitingFor(request.participant.handle)
              }
            />
            {incoming && (
              <Stack direction="row" spacing={1}>
                <Button size="small" variant="contained" onClick={() => chat.respond(request.id, true)}>
                  {ACCEPT}
                </Button>
                <Button
                  size="small"
                  variant="outlined"
                  color="inherit"
                  onClick={() => chat.respond(request.id, false)}
                >
                  {DECLINE}
                </Button>
              </Stack>
            )}
          </ListItem>
        );
      })}
    </List>
  );
});
