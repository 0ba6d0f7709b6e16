import CardGiftcard from '@mui/icons-material/CardGiftcardOutlined';
import Toll from '@mui/icons-material/TollOutlined';
import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { ReactElement, ReactNode } from 'react';
import { CREDITS_LABEL, FREE_CREDITS_LABEL, formatCredits } from '../../strings/appShell.ts';
import { Stack } from '../Stack.tsx';

export type BalanceCardProps = {
  title: string;
  credits: number | null | undefined;
  freeCredits: number | null | undefined;
  /** Links under the balances (credit history, redeem). */
  children?: ReactNode;
};

/** Credits and Gift (free credits) with 2 decimals, '0.00' when unknown; they follow the live balance. */
export function BalanceCard({ title, credits, freeCredits, children }: BalanceCardProps) {
  return (
    <Paper
      component="section"
      variant="outlined"
      aria-label={title}
      sx={{ p: { xs: 2, sm: 3 }, bgcolor: 'rgba(11, 17, 32, 0.8)', borderColor: 'divider' }}
    >
      <Typography variant="overline" component="h2" color="text.secondary">
        {title}
      </Typography>
      <Stack direction="row" spacing={3} sx={{ mt: 1, flexWrap: 'wrap', rowGap: 1.5 }}>
        <Amount
          label={CREDITS_LABEL}
          value={formatCredits(credits)}
          icon={<Toll />}
          testId="balance-credits"
        />
        <Amount
          label={FREE_CREDITS_LABEL}
          value={formatCredits(freeCredits)}
          icon={<CardGiftcard />}
          testId="balance-gift"
        />
      </Stack>
      {children && <Box sx={{ mt: 2 }}>{children}</Box>}
    </Paper>
  );
}

type AmountProps = { label: string; value: string; icon: ReactElement; testId: string };

function Amount({ label, value, icon, testId }: AmountProps) {
  return (
    <Stack direction="row" spacing={1.25} sx={{ alignItems: 'center', minWidth: 0 }}>
      <Box sx={{ display: 'flex', color: 'primary.main' }}>{icon}</Box>
      <Box>
        <Typography variant="body2" color="text.secondary">
          {label}
        </Typography>
        <Typography
          data-testid={testId}
          sx={{ fontFamily: 'monospace', fontWeight: 700, fontSize: '1.4rem', lineHeight: 1.2 }}
        >
          {value}
        </Typography>
      </Box>
    </Stack>
  );
}
