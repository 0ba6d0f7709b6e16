import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import { observer } from 'mobx-react-lite';
import { useEffect } from 'react';
import { Link as RouterLink } from 'react-router';
import { LedgerList } from '../components/credits/LedgerList.tsx';
import { LedgerTable } from '../components/credits/LedgerTable.tsx';
import { Pager } from '../components/Pager.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { Stack } from '../components/Stack.tsx';
import { paths } from '../routes/paths.ts';
import { useStores } from '../stores/StoresContext.tsx';
import {
  BUY_CREDITS,
  CREDIT_HISTORY_DESCRIPTION,
  CREDIT_HISTORY_TITLE,
  NEXT,
  NO_MOVEMENTS,
  PREVIOUS,
  pageOf,
} from '../strings/credits.ts';

export type CreditHistoryPageProps = Record<string, never>;

/** /credits: where the player's credits went, newest first, 20 a page with Previous and Next. */
export const CreditHistoryPage = observer(function CreditHistoryPage(_props: CreditHistoryPageProps) {
  usePageMeta({ title: CREDIT_HISTORY_TITLE, description: CREDIT_HISTORY_DESCRIPTION });
  const { ledger } = useStores();
  // A phone gets a list: four columns do not fit its width.
  const phone = useMediaQuery(useTheme().breakpoints.down('sm'), { noSsr: true });
  const Entries = phone ? LedgerList : LedgerTable;

  useEffect(() => {
    ledger.enter();
    return () => ledger.leave();
  }, [ledger]);

  const { page, pageCount, loading } = ledger;
  return (
    <Box sx={{ maxWidth: 1200, mx: 'auto' }}>
      <Typography variant="h4" component="h1" sx={{ mb: 1, fontSize: { xs: '1.6rem', md: '2.2rem' } }}>
        {CREDIT_HISTORY_TITLE}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        {CREDIT_HISTORY_DESCRIPTION}
      </Typography>
      <Paper
        variant="outlined"
        sx={{ bgcolor: 'rgba(11, 17, 32, 0.8)', borderColor: 'divider', overflow: 'hidden' }}
      >
        <Entries
          rows={ledger.rows}
          loading={loading}
          failed={ledger.status === 'failed'}
          skeletonRows={ledger.rows.length > 0 ? ledger.rows.length : 5}
          onRetry={() => void ledger.load()}
          empty={
            <Stack direction="row" spacing={2} sx={{ py: 1.5, alignItems: 'center', flexWrap: 'wrap' }}>
              <Typography color="text.secondary">{NO_MOVEMENTS}</Typography>
              <Button size="small" variant="outlined" component={RouterLink} to={paths.plans}>
                {BUY_CREDITS}
              </Button>
            </Stack>
          }
        />
        <Pager
          page={page}
          pageCount={pageCount}
          loading={loading}
          onPage={(target) => ledger.goToPage(target)}
          previous={PREVIOUS}
          next={NEXT}
          label={pageOf(page, pageCount)}
        />
      </Paper>
    </Box>
  );
});
