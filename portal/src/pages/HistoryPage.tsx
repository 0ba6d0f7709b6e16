import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useEffect } from 'react';
import { HistoryTable } from '../components/history/HistoryTable.tsx';
import { TimelineDialog } from '../components/history/TimelineDialog.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { Stack } from '../components/Stack.tsx';
import { useStores } from '../stores/StoresContext.tsx';
import {
  HISTORY_DESCRIPTION,
  HISTORY_TITLE,
  HISTORY_UNAVAILABLE,
  LOADING_HISTORY,
  NO_BATTLES,
  RETRY,
} from '../strings/history.ts';

export type HistoryPageProps = Record<string, never>;

/**
 * Kill Chains (core-app section 2 "History /history"): the operator's last 100 attacks, as attacker or
 * defender, and the timeline of each finished one. Loaded on every visit; the timeline closes on leave.
 */
export const HistoryPage = observer(function HistoryPage(_props: HistoryPageProps) {
  usePageMeta({ title: HISTORY_TITLE, description: HISTORY_DESCRIPTION });
  const { history } = useStores();

  useEffect(() => {
    void history.load();
    return () => history.closeTimeline();
  }, [history]);

  const loading = history.status === 'idle' || history.status === 'loading';
  const items = history.items;

  return (
    <Box sx={{ maxWidth: 1200, mx: 'auto' }}>
      <Typography variant="h4" component="h1" sx={{ mb: 4, fontSize: { xs: '1.6rem', md: '2.2rem' } }}>
        {HISTORY_TITLE}
      </Typography>
      <Paper
        variant="outlined"
        sx={{ bgcolor: 'rgba(11, 17, 32, 0.8)', borderColor: 'divider', overflow: 'hidden' }}
      >
        {items.length > 0 ? (
          <HistoryTable
            items={items}
            viewerId={history.viewerId}
            onDetails={(item) => void history.openTimeline(item)}
          />
        ) : loading ? (
          <Stack spacing={1.5} sx={{ p: 3 }} role="status" aria-label={LOADING_HISTORY}>
            {[0, 1, 2, 3, 4].map((row) => (
              <Skeleton key={row} variant="rounded" height={36} />
            ))}
          </Stack>
        ) : history.status === 'failed' ? (
          <Stack direction="row" spacing={2} sx={{ p: 3, alignItems: 'center' }}>
            <Typography color="text.secondary">{HISTORY_UNAVAILABLE}</Typography>
            <Button size="small" variant="outlined" onClick={() => void history.load()}>
              {RETRY}
            </Button>
          </Stack>
        ) : (
          <Typography color="text.secondary" sx={{ p: 3 }}>
            {NO_BATTLES}
          </Typography>
        )}
      </Paper>
      <TimelineDialog />
    </Box>
  );
});
