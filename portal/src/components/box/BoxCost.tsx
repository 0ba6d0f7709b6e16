import { TIER_PERKS } from '@exploit-grid/api/contracts/constants';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useEffect } from 'react';
import { useStores } from '../../stores/StoresContext.tsx';
import { TIERS_TOPIC, TIER_HINT, boxCostText } from '../../strings/hints.ts';
import { InfoHint } from '../InfoHint.tsx';

export type BoxCostProps = Record<string, never>;

/**
 * One line on what the player's box costs: the hour on their tier (the tier table), charged by the minute, with
 * the minimum charge of a start and the daily limit as the server configures them (GET /subscription/config;
 * left out until it answers).
 */
export const BoxCost = observer(function BoxCost(_props: BoxCostProps) {
  const { auth, plans } = useStores();
  useEffect(() => {
    if (plans.configStatus === 'idle') void plans.loadConfig();
  }, [plans]);
  const tier = auth.user?.subscription.tier;
  if (!tier) return null;
  const perks = TIER_PERKS[tier];
  const config = plans.config;
  return (
    <Typography variant="body2" color="text.secondary" data-testid="box-cost">
      {boxCostText({
        hourCost: perks.machineHourCost,
        tier,
        minimumMinutes: config?.boxMinimumChargeMinutes ?? null,
        dailyLimitMinutes: perks.dailyBoxLimited ? (config?.basicDailyLimitMinutes ?? null) : null,
      })}{' '}
      <InfoHint topic={TIERS_TOPIC} text={TIER_HINT} />
    </Typography>
  );
});
