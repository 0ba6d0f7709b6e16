import type { HallOfFame, HallOfFameResearcher } from '@exploit-grid/api/contracts';
import { HALL_OF_FAME_CARD_FINDINGS } from '@exploit-grid/api/contracts/security-constants';
import ArrowBack from '@mui/icons-material/ArrowBack';
import EmojiEventsOutlined from '@mui/icons-material/EmojiEventsOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import { useEffect, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { publicApi } from '../api/publicClient.ts';
import { PublicPage } from '../components/PublicPage.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { Stack } from '../components/Stack.tsx';
import { SeverityTag } from '../components/security/SeverityTag.tsx';
import { dayMonthYear, hallOfFameAnswer, initials, monthYear } from '../components/security/hallOfFame.ts';
import { log } from '../logging.ts';
import { paths } from '../routes/paths.ts';
import {
  BACK_TO_SECURITY,
  HALL_OF_FAME_DESCRIPTION,
  HALL_OF_FAME_EMPTY_BODY,
  HALL_OF_FAME_EMPTY_TITLE,
  HALL_OF_FAME_LEAD,
  HALL_OF_FAME_LOADING,
  HALL_OF_FAME_TITLE,
  REPORT_VULNERABILITY,
  RESEARCHERS_TITLE,
  STATUS_LABELS,
  STAT_CRITICAL,
  STAT_REPORTS,
  STAT_RESEARCHERS,
  moreFindings,
  reportsCount,
  since,
} from '../strings/security.ts';

export type HallOfFamePageProps = Record<string, never>;

const EMPTY: HallOfFame = {
  researchers: [],
  stats: { totalResearchers: 0, totalReports: 0, criticalFindingsCount: 0 },
};

/**
 * /security/hall-of-fame: the disclosure statistics and a card per researcher with their newest 3 findings and
 * '+N more'. A failed load is only logged; the page then shows its empty state (spec section 8).
 */
export function HallOfFamePage(_props: HallOfFamePageProps) {
  usePageMeta({ title: HALL_OF_FAME_TITLE, description: HALL_OF_FAME_DESCRIPTION });
  const [fame, setFame] = useState<HallOfFame | null>(null);

  useEffect(() => {
    let current = true;
    publicApi
      .get('/security/hall-of-fame', hallOfFameAnswer)
      .catch((error: unknown) => {
        log.warn('Could not load the hall of fame', error);
        return EMPTY;
      })
      .then((answer) => {
        if (current) setFame(answer);
      });
    return () => {
      current = false;
    };
  }, []);

  const stats = fame?.stats;
  return (
    <PublicPage title={HALL_OF_FAME_TITLE} lead={HALL_OF_FAME_LEAD}>
      <Box
        component="section"
        aria-label={HALL_OF_FAME_TITLE}
        sx={{ display: 'grid', gap: { xs: 1, sm: 2 }, gridTemplateColumns: 'repeat(3, 1fr)', mb: 6 }}
      >
        {(
          [
            [STAT_RESEARCHERS, stats?.totalResearchers],
            [STAT_REPORTS, stats?.totalReports],
            [STAT_CRITICAL, stats?.criticalFindingsCount],
          ] as const
        ).map(([label, value]) => (
          <Paper key={label} variant="outlined" sx={{ p: { xs: 1.5, sm: 3 }, textAlign: 'center' }}>
            <Typography
              variant="h3"
              component="p"
              color="primary"
              sx={{ fontSize: { xs: '2rem', sm: '3rem' } }}
            >
              {value ?? <Skeleton variant="text" width={48} sx={{ mx: 'auto' }} />}
            </Typography>
            <Typography color="text.secondary" sx={{ fontSize: { xs: '0.8125rem', sm: '1rem' } }}>
              {label}
            </Typography>
          </Paper>
        ))}
      </Box>

      <Typography variant="h5" component="h2" gutterBottom>
        {RESEARCHERS_TITLE}
      </Typography>
      {fame === null ? (
        <Box
          role="status"
          aria-label={HALL_OF_FAME_LOADING}
          sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: 'repeat(3, 1fr)' } }}
        >
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} variant="rounded" height={220} />
          ))}
        </Box>
      ) : fame.researchers.length === 0 ? (
        <Paper variant="outlined" sx={{ p: { xs: 3, md: 5 }, textAlign: 'center' }}>
          <EmojiEventsOutlined sx={{ fontSize: 56, color: 'primary.main', mb: 1 }} />
          <Typography variant="h6" component="h3" gutterBottom>
            {HALL_OF_FAME_EMPTY_TITLE}
          </Typography>
          <Typography color="text.secondary" sx={{ mb: 3, maxWidth: 520, mx: 'auto' }}>
            {HALL_OF_FAME_EMPTY_BODY}
          </Typography>
          <Button variant="contained" component={RouterLink} to={paths.security}>
            {REPORT_VULNERABILITY}
          </Button>
        </Paper>
      ) : (
        <Box
          component="ul"
          sx={{
            listStyle: 'none',
            p: 0,
            m: 0,
            display: 'grid',
            gap: 2,
            gridTemplateColumns: { xs: '1fr', md: 'repeat(2, 1fr)', lg: 'repeat(3, 1fr)' },
          }}
        >
          {fame.researchers.map((researcher) => (
            <ResearcherCard key={researcher.id} researcher={researcher} />
          ))}
        </Box>
      )}

      <Button component={RouterLink} to={paths.security} startIcon={<ArrowBack />} sx={{ mt: 4 }}>
        {BACK_TO_SECURITY}
      </Button>
    </PublicPage>
  );
}

/**
 * One researcher: initials (drawn here: MUI's Avatar is one more chunk on a public page), name, handle, counts,
 * and their 3 newest findings then '+N more'.
 */
function ResearcherCard({ researcher }: { researcher: HallOfFameResearcher }) {
  const shown = researcher.recentVulnerabilities.slice(0, HALL_OF_FAME_CARD_FINDINGS);
  const more = researcher.totalReports - shown.length;
  return (
    <Paper component="li" variant="outlined" aria-label={researcher.name} sx={{ p: 3, minWidth: 0 }}>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center', mb: 2, minWidth: 0 }}>
        <Box
          aria-hidden
          sx={{
            width: 40,
            height: 40,
            flexShrink: 0,
            borderRadius: '50%',
            display: 'grid',
            placeItems: 'center',
            bgcolor: 'primary.main',
            color: 'primary.contrastText',
            fontWeight: 700,
          }}
        >
          {initials(researcher.name)}
        </Box>
        <Box sx={{ minWidth: 0 }}>
          <Typography variant="h6" component="h3" noWrap title={researcher.name}>
            {researcher.name}
          </Typography>
          {researcher.handle && (
            <Typography variant="body2" color="primary" noWrap>
              @{researcher.handle}
            </Typography>
          )}
        </Box>
      </Stack>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {reportsCount(researcher.totalReports)} · {since(monthYear(researcher.firstSubmissionDate))}
      </Typography>
      <Stack component="ul" spacing={1.5} sx={{ listStyle: 'none', p: 0, m: 0 }}>
        {shown.map((finding) => (
          <Box component="li" key={finding.id} sx={{ minWidth: 0 }}>
            <Typography
              sx={{
                fontWeight: 600,
                overflowWrap: 'anywhere',
                fontStyle: finding.status === 'FIXED' ? 'normal' : 'italic',
              }}
              color={finding.status === 'FIXED' ? 'text.primary' : 'text.secondary'}
            >
              {finding.title}
            </Typography>
            <Stack
              direction="row"
              spacing={1}
              sx={{ alignItems: 'center', mt: 0.5, flexWrap: 'wrap' }}
              useFlexGap
            >
              {finding.severity && <SeverityTag severity={finding.severity} />}
              <Typography
                variant="caption"
                color={finding.status === 'FIXED' ? 'success.main' : 'text.secondary'}
              >
                {STATUS_LABELS[finding.status]}
              </Typography>
              <Typography variant="caption" color="text.secondary">
                {dayMonthYear(finding.submittedAt)}
              </Typography>
            </Stack>
          </Box>
        ))}
      </Stack>
      {more > 0 && (
        <Typography variant="body2" color="primary" sx={{ mt: 2, fontWeight: 700 }}>
          {moreFindings(more)}
        </Typography>
      )}
    </Paper>
  );
}
