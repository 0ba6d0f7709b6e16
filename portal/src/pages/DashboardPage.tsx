import EmojiEvents from '@mui/icons-material/EmojiEventsOutlined';
import GpsFixed from '@mui/icons-material/GpsFixedOutlined';
import Shield from '@mui/icons-material/ShieldOutlined';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useEffect } from 'react';
import { InfoHint } from '../components/InfoHint.tsx';
import { OnboardingChecklist } from '../components/dashboard/OnboardingChecklist.tsx';
import { RecentActivityCard } from '../components/dashboard/RecentActivityCard.tsx';
import { StatCard } from '../components/dashboard/StatCard.tsx';
import { YourBoxCard } from '../components/dashboard/YourBoxCard.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { useStores } from '../stores/StoresContext.tsx';
import {
  ATTACKS_WON,
  CURRENT_RANK,
  DASHBOARD_TITLE,
  DEFENSES_WON,
  RANK_MISSING,
  WELCOME_BACK,
} from '../strings/dashboard.ts';
import { RANK_HINT } from '../strings/hints.ts';
import { UNRANKED, UNRANKED_HINT, WELCOME } from '../strings/onboarding.ts';

export type DashboardPageProps = Record<string, never>;

/**
 * Greeting, the first-hour checklist while it is not complete, three stat cards, the box card and recent grid
 * activity. Until the checklist is complete the greeting is 'Welcome' (the spec's 'Welcome Back' is for
 * returning players) and, before a first fight, the rank card says 'Unranked'.
 */
export const DashboardPage = observer(function DashboardPage(_props: DashboardPageProps) {
  usePageMeta({ title: DASHBOARD_TITLE });
  const { auth, dashboard, box, onboarding } = useStores();

  useEffect(() => {
    void dashboard.loadStats();
  }, [dashboard]);
  useEffect(() => {
    void box.load();
  }, [box]);
  useEffect(() => onboarding.watch(), [onboarding]);

  const stats = dashboard.stats;
  // No rank before a first fight; nothing at all while that is not known yet (a new player never sees 'Rank 1').
  const fought = onboarding.fought;
  const unranked = fought === false;
  const rank =
    unranked || (fought === null && onboarding.loadStatus !== 'failed')
      ? null
      : stats?.rank != null
        ? String(stats.rank)
        : null;
  return (
    <Box sx={{ maxWidth: 1200, mx: 'auto' }}>
      <Typography variant="h4" component="h1" sx={{ mb: 4, fontSize: { xs: '1.6rem', md: '2.2rem' } }}>
        {onboarding.firstVisit === false ? WELCOME_BACK : WELCOME}{' '}
        <Box component="span" sx={{ color: 'primary.main' }}>
          {auth.user?.handle}
        </Box>
      </Typography>
      <OnboardingChecklist />
      <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', sm: 'repeat(3, 1fr)' }, mb: 3 }}>
        <StatCard
          label={CURRENT_RANK}
          value={unranked ? UNRANKED : (rank ?? RANK_MISSING)}
          note={unranked ? UNRANKED_HINT : undefined}
          icon={<EmojiEvents fontSize="small" />}
          accent="#ffd600"
          info={<InfoHint topic={CURRENT_RANK} text={RANK_HINT} />}
        />
        <StatCard
          label={ATTACKS_WON}
          value={String(stats?.attacksWon ?? 0)}
          icon={<GpsFixed fontSize="small" />}
          accent="#ff1744"
        />
        <StatCard
          label={DEFENSES_WON}
          value={String(stats?.defensesWon ?? 0)}
          icon={<Shield fontSize="small" />}
          accent="#00e5ff"
        />
      </Box>
      <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', md: '1fr 2fr' } }}>
        <YourBoxCard />
        <RecentActivityCard />
      </Box>
    </Box>
  );
});
