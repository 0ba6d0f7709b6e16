import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { Suspense, useEffect, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../routes/paths.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  LOGIN_TO_PURCHASE,
  PLANS_INTRO,
  PLANS_TABS_LABEL,
  PURCHASE_FORM_UNAVAILABLE,
  TAB_OVERVIEW,
  TAB_PURCHASE,
} from '../../strings/plans.ts';
import { lazyOr } from '../lazyOr.ts';
import { Notice } from '../Notice.tsx';
import { Stack } from '../Stack.tsx';
import type { PurchasePanelProps } from './PurchasePanel.tsx';
import { TierOverview } from './TierOverview.tsx';

/**
 * The purchase form (its slider and amount field) only ever shows on /plans, signed in: its code loads with
 * that tab, so /pricing's visitors do not download it.
 */
const PurchasePanel = lazyOr<PurchasePanelProps>(
  async () => (await import('./PurchasePanel.tsx')).PurchasePanel,
  () => <Notice severity="error">{PURCHASE_FORM_UNAVAILABLE}</Notice>,
);

/** The two modes of the screen (commerce-and-content section 4, 'Plans page mode'). */
export type PlansMode = 'overview' | 'purchase';

export type PlansScreenProps = {
  title: string;
  /**
   * /plans, inside the signed-in layout: both modes. /pricing, public: the overview; a signed-in visitor's
   * Purchase Credits tab leads to /plans, a signed-out one gets 'Login to Purchase'.
   */
  signedInPage: boolean;
  /** The mode asked for (`?mode=`); purchase falls back to overview when logged out. */
  requestedMode: PlansMode | null;
};

export const PlansScreen = observer(function PlansScreen({
  title,
  signedInPage,
  requestedMode,
}: PlansScreenProps) {
  const { auth, plans } = useStores();
  const [mode, setMode] = useState<PlansMode>(() =>
    signedInPage ? (requestedMode ?? 'purchase') : 'overview',
  );
  const shown: PlansMode = signedInPage ? mode : 'overview';
  const signedIn = auth.signedIn;
  // /pricing: the configuration is public (the BASIC daily limit of the overview); /plans loads it on entering.
  useEffect(() => {
    if (!signedInPage && plans.configStatus === 'idle') void plans.loadConfig();
  }, [signedInPage, plans]);

  return (
    <Box sx={{ maxWidth: 1200, mx: 'auto' }}>
      <Typography variant="h4" component="h1" sx={{ mb: 1, fontSize: { xs: '1.6rem', md: '2.2rem' } }}>
        {title}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3, maxWidth: 720 }}>
        {PLANS_INTRO}
      </Typography>
      {signedInPage && plans.notice && (
        <Notice severity={plans.notice.severity} sx={{ mb: 3 }} role="status">
          {plans.notice.text}
        </Notice>
      )}
      <Stack
        direction="row"
        sx={{ mb: 3, alignItems: 'center', justifyContent: 'space-between', gap: 2, flexWrap: 'wrap' }}
      >
        <Tabs
          value={shown}
          onChange={(_event, value: PlansMode) => setMode(value)}
          aria-label={PLANS_TABS_LABEL}
          variant="scrollable"
          allowScrollButtonsMobile={false}
          sx={{ minHeight: 40, maxWidth: '100%' }}
        >
          <Tab value="overview" label={TAB_OVERVIEW} sx={{ minHeight: 40 }} />
          {signedInPage && <Tab value="purchase" label={TAB_PURCHASE} sx={{ minHeight: 40 }} />}
          {!signedInPage && signedIn && (
            <Tab
              value="purchase"
              label={TAB_PURCHASE}
              component={RouterLink}
              to={paths.plans}
              sx={{ minHeight: 40 }}
            />
          )}
        </Tabs>
        {!signedIn && (
          <Button
            variant="contained"
            component={RouterLink}
            to={paths.login}
            onClick={() => auth.rememberRedirect(`${paths.plans}?mode=purchase`)}
          >
            {LOGIN_TO_PURCHASE}
          </Button>
        )}
      </Stack>
      <Box role="tabpanel" aria-label={shown === 'overview' ? TAB_OVERVIEW : TAB_PURCHASE}>
        {shown === 'overview' ? (
          <TierOverview
            currentTier={signedIn ? (auth.user?.subscription.tier ?? null) : null}
            basicDailyLimitMinutes={plans.config?.basicDailyLimitMinutes}
          />
        ) : (
          <Suspense fallback={<Box sx={{ minHeight: 320 }} />}>
            <PurchasePanel />
          </Suspense>
        )}
      </Box>
    </Box>
  );
});
