import { CREDITS_PER_USD, PURCHASE_DEFAULT_USD, type Tier } from '@exploit-grid/api/contracts/constants';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../routes/paths.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  AMOUNT_TITLE,
  BALANCE_TITLE,
  BUY_CREDITS,
  COST,
  CREDIT_HISTORY_LINK,
  LOADING_PAYMENTS,
  NON_REFUNDABLE,
  PAYMENTS_DISABLED,
  PAYMENTS_UNAVAILABLE,
  REDEEM_INSTEAD,
  RETRY,
  STARTING_CHECKOUT,
  TIER_CHOICE_LABEL,
  TIER_COMING_SOON,
  YOU_RECEIVE,
  buyCredits,
  formatCount,
  formatUsd,
} from '../../strings/plans.ts';
import { BalanceCard } from '../credits/BalanceCard.tsx';
import { Stack } from '../Stack.tsx';
import { AmountControl } from './AmountControl.tsx';
import { creditsFor, parseAmount } from './amount.ts';
import { TierChoice } from './TierChoice.tsx';
import { isPurchasable } from './tierButton.ts';

export type PurchasePanelProps = Record<string, never>;

const panel = { p: { xs: 2, sm: 3 }, bgcolor: 'rgba(11, 17, 32, 0.8)', borderColor: 'divider' } as const;

/**
 * The Purchase Credits view (commerce-and-content sections 2, 5, 9): the balance, an amount from 5 to 1000
 * dollars, what it buys (100 credits a dollar) and the tier, then the provider's checkout. Without payment
 * keys it says so and points to gift tokens; nothing offers to charge.
 */
export const PurchasePanel = observer(function PurchasePanel(_props: PurchasePanelProps) {
  const { auth, plans } = useStores();
  const user = auth.user;
  const [text, setText] = useState(String(PURCHASE_DEFAULT_USD));
  const [lastValid, setLastValid] = useState(PURCHASE_DEFAULT_USD);
  const currentTier: Tier = user?.subscription.tier ?? 'BASIC';
  const [selectedTier, setSelectedTier] = useState<Tier>(isPurchasable(currentTier) ? currentTier : 'BASIC');

  const amount = parseAmount(text);
  const changeAmount = (next: string) => {
    setText(next);
    const parsed = parseAmount(next);
    if (parsed !== null) setLastValid(parsed);
  };

  const balance = (
    <BalanceCard title={BALANCE_TITLE} credits={user?.credits} freeCredits={user?.freeCredits}>
      <Link component={RouterLink} to={paths.credits} underline="hover" variant="body2">
        {CREDIT_HISTORY_LINK}
      </Link>
    </BalanceCard>
  );

  if (plans.configStatus !== 'ready' || !plans.config) {
    return (
      <Stack spacing={3}>
        {balance}
        {plans.configStatus === 'failed' ? (
          <Alert
            severity="error"
            action={
              <Button color="inherit" size="small" onClick={() => void plans.loadConfig()}>
                {RETRY}
              </Button>
            }
          >
            {PAYMENTS_UNAVAILABLE}
          </Alert>
        ) : (
          <Box sx={{ display: 'grid', placeItems: 'center', py: 4 }}>
            <CircularProgress aria-label={LOADING_PAYMENTS} />
          </Box>
        )}
      </Stack>
    );
  }

  if (!plans.config.paymentsEnabled) {
    return (
      <Stack spacing={3}>
        {balance}
        <Alert severity="info">
          <Typography variant="body2">{PAYMENTS_DISABLED}</Typography>
          <Button
            variant="outlined"
            size="small"
            color="inherit"
            component={RouterLink}
            to={paths.redeem}
            sx={{ mt: 1.5 }}
          >
            {REDEEM_INSTEAD}
          </Button>
        </Alert>
      </Stack>
    );
  }

  const credits = amount === null ? null : creditsFor(amount);
  return (
    <Box
      sx={{
        display: 'grid',
        gap: 3,
        gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: 'minmax(0, 3fr) minmax(0, 2fr)' },
        alignItems: 'start',
      }}
    >
      {/* Two columns from md; on a phone one, ordered balance, amount, what it buys, tier. */}
      <Stack spacing={{ xs: 0, md: 3 }} sx={{ minWidth: 0, display: { xs: 'contents', md: 'flex' } }}>
        <Paper
          component="section"
          variant="outlined"
          aria-label={AMOUNT_TITLE}
          sx={{ ...panel, order: { xs: 2, md: 0 } }}
        >
          <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
            {AMOUNT_TITLE}
          </Typography>
          <AmountControl
            text={text}
            amount={amount}
            lastValid={lastValid}
            disabled={plans.purchasing}
            onChange={changeAmount}
          />
        </Paper>
        <Paper
          component="section"
          variant="outlined"
          aria-label={TIER_CHOICE_LABEL}
          sx={{ ...panel, order: { xs: 4, md: 0 } }}
        >
          <Typography variant="h6" component="h2" sx={{ mb: 0.5 }}>
            {TIER_CHOICE_LABEL}
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            {TIER_COMING_SOON}
          </Typography>
          <TierChoice
            current={currentTier}
            selected={selectedTier}
            disabled={plans.purchasing}
            onSelect={setSelectedTier}
          />
        </Paper>
      </Stack>
      <Stack spacing={{ xs: 0, md: 3 }} sx={{ minWidth: 0, display: { xs: 'contents', md: 'flex' } }}>
        <Box sx={{ order: { xs: 1, md: 0 } }}>{balance}</Box>
        <Paper
          component="section"
          variant="outlined"
          aria-label={YOU_RECEIVE}
          sx={{ ...panel, order: { xs: 3, md: 0 } }}
        >
          <Stack spacing={1.5}>
            <Stack direction="row" sx={{ justifyContent: 'space-between', gap: 2 }}>
              <Typography color="text.secondary">{YOU_RECEIVE}</Typography>
              <Typography data-testid="credits-received" sx={{ fontFamily: 'monospace', fontWeight: 700 }}>
                {credits === null ? '—' : `${formatCount(credits)} credits`}
              </Typography>
            </Stack>
            <Stack direction="row" sx={{ justifyContent: 'space-between', gap: 2 }}>
              <Typography color="text.secondary">{COST}</Typography>
              <Typography data-testid="cost" sx={{ fontFamily: 'monospace', fontWeight: 700 }}>
                {credits === null ? '—' : formatUsd(credits / CREDITS_PER_USD)}
              </Typography>
            </Stack>
            {plans.purchaseError && (
              <Alert severity="error" data-testid="purchase-error">
                {plans.purchaseError}
              </Alert>
            )}
            <Button
              variant="contained"
              size="large"
              disabled={amount === null || plans.purchasing}
              onClick={() => amount !== null && void plans.startPurchase(amount, selectedTier)}
            >
              {plans.purchasing
                ? STARTING_CHECKOUT
                : amount === null
                  ? BUY_CREDITS
                  : buyCredits(creditsFor(amount), amount)}
            </Button>
            <Typography variant="caption" color="text.secondary">
              {NON_REFUNDABLE}
            </Typography>
          </Stack>
        </Paper>
      </Stack>
    </Box>
  );
});
