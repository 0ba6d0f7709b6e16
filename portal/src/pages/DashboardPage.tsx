import EmojiEvents from '@mui/icons-material/EmojiEventsOutlined';
import GpsFixed from '@mui/icons-material/GpsFixedOutlined';
import Shield from '@mui/icons-material/ShieldOutlined';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useEffect } from 'react';
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

export type DashboardPageProps = Record<string, never>;

/** Greeting, three stat cards, the box card and recent grid activity. */
export const DashboardPage = observer(function DashboardPage(_props: DashboardPageProps) {
  usePageMeta({ title: DASHBOARD_TITLE });
  const { auth, dashboard, box } = useStores();

  useEffect(() => {
    void dashboard.loadStats();
  }, [dashboard]);
  useEffect(() => {
    void box.load();
  }, [box]);

  const stats = dashboard.stats;
  return (
    <Box sx={{ maxWidth: 1200, mx: 'auto' }}>
      <Typography variant="h4" component="h1" sx={{ mb: 4, fontSize: { xs: '1.6rem', md: '2.2rem' } }}>
        {WELCOME_BACK}{' '}
        <Box component="span" sx={{ color: 'primary.main' }}>
          {auth.user?.handle}
        </Box>
      </Typography>
      <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', sm: 'repeat(3, 1fr)' }, mb: 3 }}>
        <StatCard
          label={CURRENT_RANK}
          value={stats?.rank != null ? String(stats.rank) : RANK_MISSING}
          icon={<EmojiEvents fontSize="small" />}
          accent="#ffd600"
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
