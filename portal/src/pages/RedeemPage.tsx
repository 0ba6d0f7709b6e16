import LockOutlined from '@mui/icons-material/LockOutlined';
import Redeem from '@mui/icons-material/RedeemOutlined';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { Link as RouterLink } from 'react-router';
import { BalanceCard } from '../components/credits/BalanceCard.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { Stack } from '../components/Stack.tsx';
import { paths } from '../routes/paths.ts';
import { useStores } from '../stores/StoresContext.tsx';
import { CREDIT_HISTORY_LINK } from '../strings/plans.ts';
import {
  BALANCE_TITLE,
  KEEP_OFFLINE_TIP,
  REDEEM_DESCRIPTION,
  REDEEM_INTRO,
  REDEEM_NOW,
  REDEEM_TITLE,
  REDEEMING,
  SINGLE_USE,
  SINGLE_USE_NOTE,
  TOKEN_LABEL,
  TOKEN_PLACEHOLDER,
} from '../strings/redeem.ts';

export type RedeemPageProps = Record<string, never>;

/** Long enough for a token typed with spaces around it; the API refuses anything longer. */
const TOKEN_MAX_LENGTH = 64;

/**
 * /redeem (commerce-and-content sections 2, 4, 8): a gift token for free credits. The layout gives this
 * route no padding (core-app section 2): the page sets its own.
 */
export const RedeemPage = observer(function RedeemPage(_props: RedeemPageProps) {
  usePageMeta({ title: REDEEM_TITLE, description: REDEEM_DESCRIPTION });
  const { auth, redeem } = useStores();
  const user = auth.user;

  return (
    <Box
      sx={{
        minHeight: '100%',
        px: { xs: 2, md: 3 },
        py: { xs: 3, md: 5 },
        backgroundImage: 'radial-gradient(ellipse at 50% -10%, rgba(0, 229, 255, 0.10), transparent 60%)',
      }}
    >
      <Box sx={{ maxWidth: 960, mx: 'auto' }}>
        <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', mb: 1 }}>
          <Redeem color="primary" />
          <Typography variant="h4" component="h1" sx={{ fontSize: { xs: '1.6rem', md: '2.2rem' } }}>
            {REDEEM_TITLE}
          </Typography>
        </Stack>
        <Typography color="text.secondary" sx={{ mb: 4 }}>
          {REDEEM_INTRO}
        </Typography>
        <Box
          sx={{
            display: 'grid',
            gap: 3,
            gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: 'minmax(0, 3fr) minmax(0, 2fr)' },
            alignItems: 'start',
          }}
        >
          <Paper
            component="form"
            variant="outlined"
            aria-label={REDEEM_TITLE}
            noValidate
            onSubmit={(event) => {
              event.preventDefault();
              void redeem.redeem();
            }}
            sx={{ p: { xs: 2, sm: 3 }, bgcolor: 'rgba(11, 17, 32, 0.8)', borderColor: 'divider' }}
          >
            <Stack spacing={2.5}>
              <TextField
                label={TOKEN_LABEL}
                placeholder={TOKEN_PLACEHOLDER}
                value={redeem.token}
                onChange={(event) => redeem.setToken(event.target.value)}
                disabled={redeem.busy}
                fullWidth
                slotProps={{
                  htmlInput: {
                    maxLength: TOKEN_MAX_LENGTH,
                    autoComplete: 'off',
                    autoCapitalize: 'characters',
                    spellCheck: false,
                    sx: { fontFamily: 'monospace', letterSpacing: '0.12em', textTransform: 'uppercase' },
                  },
                }}
              />
              <Button type="submit" variant="contained" size="large" disabled={!redeem.canRedeem}>
                {redeem.busy ? REDEEMING : REDEEM_NOW}
              </Button>
              <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
                <Chip size="small" variant="outlined" color="warning" label={SINGLE_USE} />
                <Typography variant="body2" color="text.secondary">
                  {SINGLE_USE_NOTE}
                </Typography>
              </Stack>
            </Stack>
          </Paper>
          <Stack spacing={3}>
            <BalanceCard title={BALANCE_TITLE} credits={user?.credits} freeCredits={user?.freeCredits}>
              <Link component={RouterLink} to={paths.credits} underline="hover" variant="body2">
                {CREDIT_HISTORY_LINK}
              </Link>
            </BalanceCard>
            <Alert severity="info" icon={<LockOutlined fontSize="inherit" />}>
              {KEEP_OFFLINE_TIP}
            </Alert>
          </Stack>
        </Box>
      </Box>
    </Box>
  );
});
