import {
  PURCHASE_MAX_USD,
  PURCHASE_MIN_USD,
  PURCHASE_QUICK_PICKS_USD,
} from '@exploit-grid/api/contracts/constants';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import InputAdornment from '@mui/material/InputAdornment';
import Slider from '@mui/material/Slider';
import Typography from '@mui/material/Typography';
import { Field } from '../Field.tsx';
import {
  AMOUNT_HELP,
  AMOUNT_INVALID,
  AMOUNT_LABEL,
  AMOUNT_SLIDER_LABEL,
  QUICK_PICKS_LABEL,
} from '../../strings/plans.ts';
import { Stack } from '../Stack.tsx';

export type AmountControlProps = {
  /** What the number input shows, as typed. */
  text: string;
  /** The amount `text` is, or null when it is not a whole number of dollars from 5 to 1000. */
  amount: number | null;
  /** The last valid amount: where the slider stays while the input holds something it refuses. */
  lastValid: number;
  disabled: boolean;
  onChange: (text: string) => void;
};

/** A number input and a slider (5 to 1000, step 1) that move together, and the quick picks 10, 20, 50, 100. */
export function AmountControl({ text, amount, lastValid, disabled, onChange }: AmountControlProps) {
  const invalid = amount === null;
  return (
    <Stack spacing={2}>
      <Field
        type="number"
        label={AMOUNT_LABEL}
        value={text}
        disabled={disabled}
        onChange={onChange}
        error={invalid ? AMOUNT_INVALID : undefined}
        helperText={AMOUNT_HELP}
        sx={{ maxWidth: { sm: 280 } }}
        startAdornment={<InputAdornment position="start">$</InputAdornment>}
        inputProps={{ min: PURCHASE_MIN_USD, max: PURCHASE_MAX_USD, step: 1, inputMode: 'numeric' }}
      />
      <Box sx={{ px: 1.5 }}>
        <Slider
          value={amount ?? lastValid}
          min={PURCHASE_MIN_USD}
          max={PURCHASE_MAX_USD}
          step={1}
          disabled={disabled}
          valueLabelDisplay="auto"
          valueLabelFormat={(value) => `$${value}`}
          onChange={(_event, value) => onChange(String(value))}
          slotProps={{ input: { 'aria-label': AMOUNT_SLIDER_LABEL } }}
        />
      </Box>
      <Box>
        <Typography variant="body2" color="text.secondary" id="quick-picks-label" sx={{ mb: 1 }}>
          {QUICK_PICKS_LABEL}
        </Typography>
        <Stack
          direction="row"
          role="group"
          aria-labelledby="quick-picks-label"
          sx={{ gap: 1, flexWrap: 'wrap' }}
        >
          {PURCHASE_QUICK_PICKS_USD.map((pick) => (
            <Button
              key={pick}
              size="small"
              variant={amount === pick ? 'contained' : 'outlined'}
              aria-pressed={amount === pick}
              disabled={disabled}
              onClick={() => onChange(String(pick))}
              sx={{ minWidth: 64, fontFamily: 'monospace' }}
            >
              ${pick}
            </Button>
          ))}
        </Stack>
      </Box>
    </Stack>
  );
}
