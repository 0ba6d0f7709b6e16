import { TIER_PERKS, type Tier } from '@exploit-grid/api/contracts/constants';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import {
  AVAILABLE_NOW,
  COMING_SOON,
  DAILY_LIMIT,
  NO,
  PERK_ATTACK,
  PERK_MACHINE,
  PERK_PERSISTENT_IP,
  PERK_SESSION,
  PERK_SNAPSHOTS,
  PERK_SUPPORT,
  UNLIMITED,
  YES,
  YOUR_TIER,
  creditsEach,
  creditsPerHour,
  dollarsPerHour,
  minutesPerDay,
  supportLevels,
  tierNames,
} from '../../strings/plans.ts';
import { Stack } from '../Stack.tsx';
import { Tag } from '../Tag.tsx';
import { isPurchasable } from './tierButton.ts';

export type TierCardProps = {
  tier: Tier;
  /** The signed-in player's tier. */
  current: boolean;
  /** The BASIC tier's daily box time, when the server says it. */
  basicDailyLimitMinutes: number | undefined;
};

/** One column of the tier table (commerce-and-content section 6) as a card. */
export function TierCard({ tier, current, basicDailyLimitMinutes }: TierCardProps) {
  const perks = TIER_PERKS[tier];
  const session = !perks.dailyBoxLimited
    ? UNLIMITED
    : basicDailyLimitMinutes
      ? minutesPerDay(basicDailyLimitMinutes)
      : DAILY_LIMIT;
  const rows: [string, string][] = [
    [PERK_MACHINE, creditsPerHour(perks.machineHourCost)],
    [PERK_ATTACK, creditsEach(perks.attackCost)],
    [PERK_SESSION, session],
    [PERK_SNAPSHOTS, String(perks.snapshotSlots)],
    [PERK_PERSISTENT_IP, perks.canHavePersistentIp ? YES : NO],
    [PERK_SUPPORT, supportLevels[perks.supportLevel]],
  ];
  const name = tierNames[tier];
  return (
    <Paper
      component="article"
      variant="outlined"
      aria-label={name}
      data-tier={tier}
      sx={{
        p: 2.5,
        bgcolor: 'rgba(11, 17, 32, 0.8)',
        borderColor: current ? 'primary.main' : 'divider',
        borderTop: 3,
        borderTopColor: current ? 'primary.main' : 'divider',
        display: 'flex',
        flexDirection: 'column',
        gap: 1.5,
      }}
    >
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', justifyContent: 'space-between' }}>
        <Typography variant="h6" component="h3" sx={{ textTransform: 'uppercase', letterSpacing: '0.06em' }}>
          {name}
        </Typography>
        {current && <Tag color="primary" label={YOUR_TIER} />}
      </Stack>
      <Typography variant="body2" color="text.secondary">
        {dollarsPerHour(perks.machineHourCost)}
      </Typography>
      <Stack component="dl" spacing={0.75} sx={{ m: 0 }}>
        {rows.map(([label, value]) => (
          <Stack key={label} direction="row" spacing={1} sx={{ justifyContent: 'space-between' }}>
            <Typography component="dt" variant="body2" color="text.secondary">
              {label}
            </Typography>
            <Typography
              component="dd"
              variant="body2"
              sx={{ m: 0, fontFamily: 'monospace', textAlign: 'right' }}
            >
              {value}
            </Typography>
          </Stack>
        ))}
      </Stack>
      <Tag
        variant="outlined"
        color={isPurchasable(tier) ? 'success' : 'default'}
        label={isPurchasable(tier) ? AVAILABLE_NOW : COMING_SOON}
        sx={{ alignSelf: 'flex-start', mt: 'auto' }}
      />
    </Paper>
  );
}
