import SearchIcon from '@mui/icons-material/Search';
import Box from '@mui/material/Box';
import InputAdornment from '@mui/material/InputAdornment';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useEffect } from 'react';
import { LeaderboardTable } from '../components/leaderboard/LeaderboardTable.tsx';
import { Pager } from '../components/Pager.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { useStores } from '../stores/StoresContext.tsx';
import {
  LEADERBOARD_DESCRIPTION,
  LEADERBOARD_PAGE_SIZE,
  LEADERBOARD_TITLE,
  NEXT,
  PREVIOUS,
  SEARCH_LABEL,
  SEARCH_PLACEHOLDER,
  pageOf,
} from '../strings/leaderboard.ts';
import { MMR_HINT } from '../strings/hints.ts';

export type LeaderboardPageProps = Record<string, never>;

/** The longest search the API takes. */
const SEARCH_MAX_LENGTH = 64;

/**
 * The leaderboard (commerce-and-content spec, Leaderboard screen): a search box for handle, a sortable table of
 * 15 operators a page with Previous and Next, the operator's own row highlighted. Every visit starts at page 1
 * by rank and is logged as a LEADERBOARD_VIEW.
 */
export const LeaderboardPage = observer(function LeaderboardPage(_props: LeaderboardPageProps) {
  usePageMeta({ title: LEADERBOARD_TITLE, description: LEADERBOARD_DESCRIPTION });
  const { leaderboard } = useStores();

  useEffect(() => {
    leaderboard.enter();
    return () => leaderboard.leave();
  }, [leaderboard]);

  const { page, pageCount, loading } = leaderboard;

  return (
    <Box sx={{ maxWidth: 1200, mx: 'auto' }}>
      <Typography variant="h4" component="h1" sx={{ mb: 1, fontSize: { xs: '1.6rem', md: '2.2rem' } }}>
        {LEADERBOARD_TITLE}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 3 }} data-testid="mmr-hint">
        {MMR_HINT}
      </Typography>
      <TextField
        type="search"
        size="small"
        label={SEARCH_LABEL}
        placeholder={SEARCH_PLACEHOLDER}
        value={leaderboard.searchText}
        onChange={(event) => leaderboard.setSearchText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') leaderboard.applySearch();
        }}
        sx={{ mb: 3, width: { xs: '100%', sm: 360 } }}
        slotProps={{
          input: {
            startAdornment: (
              <InputAdornment position="start">
                <SearchIcon fontSize="small" />
              </InputAdornment>
            ),
          },
          htmlInput: { maxLength: SEARCH_MAX_LENGTH, spellCheck: false, autoComplete: 'off' },
        }}
      />
      <Paper
        variant="outlined"
        sx={{ bgcolor: 'rgba(11, 17, 32, 0.8)', borderColor: 'divider', overflow: 'hidden' }}
      >
        <LeaderboardTable
          rows={leaderboard.rows}
          loading={loading}
          failed={leaderboard.status === 'failed'}
          viewerId={leaderboard.viewerId}
          sortBy={leaderboard.sortBy}
          sortOrder={leaderboard.sortOrder}
          skeletonRows={leaderboard.rows.length > 0 ? leaderboard.rows.length : LEADERBOARD_PAGE_SIZE}
          onSort={(field) => leaderboard.sort(field)}
          onRetry={() => void leaderboard.load()}
        />
        <Pager
          page={page}
          pageCount={pageCount}
          loading={loading}
          onPage={(target) => leaderboard.goToPage(target)}
          previous={PREVIOUS}
          next={NEXT}
          label={pageOf(page, pageCount)}
        />
      </Paper>
    </Box>
  );
});
