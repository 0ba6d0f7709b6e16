import History from '@mui/icons-material/HistoryOutlined';
import Redeem from '@mui/icons-material/RedeemOutlined';
import Toll from '@mui/icons-material/TollOutlined';
import CardGiftcard from '@mui/icons-material/CardGiftcardOutlined';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import type { ReactElement } from 'react';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../routes/paths.ts';
import { CREDITS_HINT, GIFT_HINT } from '../../strings/hints.ts';
import { InfoHint } from '../InfoHint.tsx';
import {
  CREDITS_LABEL,
  CREDIT_HISTORY,
  FREE_CREDITS_LABEL,
  REDEEM_GIFT,
  formatCredits,
} from '../../strings/appShell.ts';
import { Stack } from '../Stack.tsx';

export type SidebarCreditsProps = {
  credits: number | null | undefined;
  freeCredits: number | null | undefined;
  collapsed: boolean;
};

type BalanceProps = {
  label: string;
  value: string;
  icon: ReactElement;
  collapsed: boolean;
  testId: string;
  /** What the balance is, behind an info button (when expanded). */
  hint: string;
};

function Balance({ label, value, icon, collapsed, testId, hint }: BalanceProps) {
  return (
    <Stack
      direction={collapsed ? 'column' : 'row'}
      spacing={collapsed ? 0.25 : 1}
      title={collapsed ? `${label} ${value}` : undefined}
      sx={{ alignItems: 'center', color: 'text.secondary' }}
    >
      <Box sx={{ display: 'flex', fontSize: 18 }}>{icon}</Box>
      {!collapsed && (
        <Typography variant="body2" sx={{ flex: 1, display: 'flex', alignItems: 'center', gap: 0.5 }}>
          {label}
          <InfoHint topic={label} text={hint} />
        </Typography>
      )}
      <Typography
        variant="body2"
        data-testid={testId}
        aria-label={collapsed ? `${label} ${value}` : undefined}
        sx={{ color: 'text.primary', fontFamily: 'monospace', fontWeight: 700 }}
      >
        {value}
      </Typography>
    </Stack>
  );
}

/** Credits and free credits ('Gift') with 2 decimals, and the Redeem Gift and history links when expanded. */
export function SidebarCredits({ credits, freeCredits, collapsed }: SidebarCreditsProps) {
  return (
    <Box
      aria-label="Balances"
      role="group"
      sx={{
        mx: 1,
        p: 1.5,
        border: 1,
        borderColor: 'divider',
        borderRadius: 1,
        bgcolor: 'rgba(0, 229, 255, 0.03)',
      }}
    >
      <Stack spacing={1}>
        <Balance
          label={CREDITS_LABEL}
          value={formatCredits(credits)}
          icon={<Toll fontSize="inherit" />}
          collapsed={collapsed}
          testId="credits"
          hint={CREDITS_HINT}
        />
        <Balance
          label={FREE_CREDITS_LABEL}
          value={formatCredits(freeCredits)}
          icon={<CardGiftcard fontSize="inherit" />}
          collapsed={collapsed}
          testId="free-credits"
          hint={GIFT_HINT}
        />
        {!collapsed && (
          <Link
            component={RouterLink}
            to={paths.redeem}
            title={REDEEM_GIFT}
            variant="body2"
            underline="hover"
            sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.75, pt: 0.5 }}
          >
            <Redeem fontSize="small" />
            {REDEEM_GIFT}
          </Link>
        )}
        {!collapsed && (
          <Link
            component={RouterLink}
            to={paths.credits}
            variant="body2"
            underline="hover"
            sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.75 }}
          >
            <History fontSize="small" />
            {CREDIT_HISTORY}
          </Link>
        )}
      </Stack>
    </Box>
  );
}
