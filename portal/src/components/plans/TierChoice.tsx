import { TIER_PERKS, TIERS, type Tier } from '@exploit-grid/api/contracts/constants';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { COMING_SOON, SELECTED, TIER_CHOICE_LABEL, creditsPerHour, tierNames } from '../../strings/plans.ts';
import { Stack } from '../Stack.tsx';
import { tierButtonOf } from './tierButton.ts';

export type TierChoiceProps = {
  current: Tier;
  selected: Tier;
  disabled: boolean;
  onSelect: (tier: Tier) => void;
};

/**
 * The tier the purchase is for. Each tier's button says what choosing it means by tier order: 'Current
 * Tier' (disabled), 'Upgrade Tier' or 'Change Tier'. Only BASIC can be bought today; the others say
 * 'Coming soon' and cannot be chosen.
 */
export function TierChoice({ current, selected, disabled, onSelect }: TierChoiceProps) {
  return (
    <Box role="list" aria-label={TIER_CHOICE_LABEL} sx={{ display: 'grid', gap: 1 }}>
      {TIERS.map((tier) => {
        const button = tierButtonOf(tier, current);
        const name = tierNames[tier];
        const isSelected = tier === selected;
        return (
          <Paper
            role="listitem"
            key={tier}
            variant="outlined"
            aria-label={name}
            data-tier={tier}
            sx={{
              p: 1.5,
              display: 'flex',
              flexWrap: 'wrap',
              alignItems: 'center',
              gap: 1.5,
              bgcolor: isSelected ? 'rgba(0, 229, 255, 0.06)' : 'transparent',
              borderColor: isSelected ? 'primary.main' : 'divider',
            }}
          >
            <Box sx={{ flex: '1 1 140px', minWidth: 0 }}>
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                <Typography sx={{ fontFamily: 'monospace', fontWeight: 700, textTransform: 'uppercase' }}>
                  {name}
                </Typography>
                {isSelected && <Chip size="small" color="primary" variant="outlined" label={SELECTED} />}
              </Stack>
              <Typography variant="body2" color="text.secondary">
                {button.purchasable ? creditsPerHour(TIER_PERKS[tier].machineHourCost) : COMING_SOON}
              </Typography>
            </Box>
            <Button
              size="small"
              variant={button.disabled ? 'outlined' : 'contained'}
              disabled={disabled || button.disabled}
              aria-label={`${button.label}: ${name}`}
              onClick={() => onSelect(tier)}
            >
              {button.label}
            </Button>
          </Paper>
        );
      })}
    </Box>
  );
}
