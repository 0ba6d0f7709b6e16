import { TIERS, type Tier } from '@exploit-grid/api/contracts/constants';
import Box from '@mui/material/Box';
import { TIER_OVERVIEW_LABEL } from '../../strings/plans.ts';
import { TierCard } from './TierCard.tsx';

export type TierOverviewProps = {
  currentTier: Tier | null;
  basicDailyLimitMinutes: number | undefined;
};

/** The four tiers side by side (stacked on a phone), in tier order. */
export function TierOverview({ currentTier, basicDailyLimitMinutes }: TierOverviewProps) {
  return (
    <Box
      role="list"
      aria-label={TIER_OVERVIEW_LABEL}
      sx={{
        display: 'grid',
        gap: 2,
        gridTemplateColumns: { xs: '1fr', sm: 'repeat(2, minmax(0, 1fr))', lg: 'repeat(4, minmax(0, 1fr))' },
      }}
    >
      {TIERS.map((tier) => (
        <Box role="listitem" key={tier} sx={{ display: 'flex', '& > *': { flex: 1 } }}>
          <TierCard
            tier={tier}
            current={tier === currentTier}
            basicDailyLimitMinutes={basicDailyLimitMinutes}
          />
        </Box>
      ))}
    </Box>
  );
}
