import { stripTags } from '@exploit-grid/api/contracts';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useLayoutEffect, useRef, type UIEvent } from 'react';
import type { ChatEntry } from '../../stores/MessageThread.ts';
import { formatDateTime, formatTimeOfDay } from '../history/format.ts';
import { LOAD_OLDER, RETRY, SEND_FAILED, SENDING } from '../../strings/chat.ts';
import { Stack } from '../Stack.tsx';

export type MessageListProps = {
  /** The list's accessible name. */
  label: string;
  messages: readonly ChatEntry[];
  empty: string;
  onRetry: (tempId: string) => void;
  /** Older messages can be asked for: a button at the top, and scrolling to the top. */
  onLoadOlder?: () => void;
  hasOlder?: boolean;
  /** An older page is on its way: the button waits. */
  loadingOlder?: boolean;
};

/**
 * Messages, oldest first, their content stripped of tags (core-app section 5). A message being sent is
 * dimmed; one that failed says so and offers Retry. New messages scroll the list to the bottom; an older page
 * put on top keeps the messages in view where they were.
 */
export const MessageList = observer(function MessageList({
  label,
  messages,
  empty,
  onRetry,
  onLoadOlder,
  hasOlder = false,
  loadingOlder = false,
}: MessageListProps) {
  const ref = useRef<HTMLDivElement>(null);
  const seen = useRef<{ first?: string; last?: string; height: number }>({ height: 0 });
  const first = messages[0]?.key;
  const last = messages.at(-1)?.key;
  // After every render: a new last message scrolls to the bottom; a new first one (an older page) moves the
  // view down by what was added above it.
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const before = seen.current;
    if (last !== before.last) element.scrollTop = element.scrollHeight;
    else if (first !== before.first) element.scrollTop += element.scrollHeight - before.height;
    seen.current = { first, last, height: element.scrollHeight };
  });
  const onScroll = (event: UIEvent<HTMLDivElement>) => {
    if (onLoadOlder && hasOlder && !loadingOlder && event.currentTarget.scrollTop === 0) onLoadOlder();
  };
  return (
    <Box ref={ref} onScroll={onScroll} sx={{ flex: 1, minHeight: 0, overflowY: 'auto', px: 1.5, py: 1 }}>
      {onLoadOlder && hasOlder && messages.length > 0 && (
        <Box sx={{ textAlign: 'center', mb: 1 }}>
          <Button size="small" onClick={onLoadOlder} disabled={loadingOlder}>
            {LOAD_OLDER}
          </Button>
        </Box>
      )}
      {messages.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {empty}
        </Typography>
      ) : (
        <Stack component="ul" aria-label={label} spacing={0.75} sx={{ listStyle: 'none', m: 0, p: 0 }}>
          {messages.map((message) => (
            <Box
              component="li"
              key={message.key}
              data-status={message.status}
              sx={{ opacity: message.status === 'optimistic' ? 0.55 : 1, wordBreak: 'break-word' }}
            >
              <Typography variant="body2" component="div" sx={{ whiteSpace: 'pre-wrap' }}>
                <Box
                  component="time"
                  dateTime={message.at}
                  title={formatDateTime(message.at)}
                  sx={{ color: 'text.secondary', fontFamily: 'monospace', fontSize: '0.75rem', mr: 0.75 }}
                >
                  {formatTimeOfDay(message.at)}
                </Box>
                <Box component="span" sx={{ fontWeight: 700, color: 'primary.main', mr: 0.75 }}>
                  {message.sender.handle}
                </Box>
                {stripTags(message.content)}
              </Typography>
              {message.status === 'optimistic' && (
                <Typography variant="caption" color="text.secondary">
                  {SENDING}
                </Typography>
              )}
              {message.status === 'failed' && message.tempId && (
                <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                  <Typography variant="caption" color="error">
                    {SEND_FAILED}
                  </Typography>
                  <Button
                    size="small"
                    color="error"
                    onClick={() => message.tempId && onRetry(message.tempId)}
                  >
                    {RETRY}
                  </Button>
                </Stack>
              )}
            </Box>
          ))}
        </Stack>
      )}
    </Box>
  );
});
