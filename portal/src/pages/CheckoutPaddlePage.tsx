import { paymentStatusSchema } from '@exploit-grid/api/contracts';
import CancelOutlined from '@mui/icons-material/CancelOutlined';
import CheckCircleOutline from '@mui/icons-material/CheckCircleOutlineOutlined';
import ErrorOutline from '@mui/icons-material/ErrorOutlineOutlined';
import LockOutlined from '@mui/icons-material/LockOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useEffect, useState, type ReactElement } from 'react';
import { Link as RouterLink, useLocation } from 'react-router';
import {
  PaddleCheckoutMachine,
  type CheckoutPhase,
  type PaddleCheckoutDeps,
} from '../checkout/PaddleCheckout.ts';
import { paddleFrame, paddleLoader } from '../checkout/paddle.ts';
import { parseCheckoutParams } from '../checkout/params.ts';
import { usePageMeta } from '../components/pageMeta.ts';
import { Stack } from '../components/Stack.tsx';
import { toast } from '../notifications/toast.ts';
import { paths } from '../routes/paths.ts';
import type { RootStore } from '../stores/RootStore.ts';
import { useStores } from '../stores/StoresContext.tsx';
import {
  BACK_TO_PLANS,
  CHECKOUT_CANCELLED,
  CHECKOUT_CHECKING,
  CHECKOUT_ERROR,
  CHECKOUT_INITIALIZING,
  CHECKOUT_OPEN,
  CHECKOUT_SUCCESS,
  CHECKOUT_TITLE,
  RETURNING,
} from '../strings/checkout.ts';

export type CheckoutPaddlePageProps = Record<string, never>;

/**
 * /checkout/paddle: the status screen around Paddle's overlay checkout. The flow lives in
 * `PaddleCheckoutMachine`; this page gives it Paddle.js, the payment-status call, toasts and navigation, and
 * shows its state.
 */
export const CheckoutPaddlePage = observer(function CheckoutPaddlePage(_props: CheckoutPaddlePageProps) {
  usePageMeta({ title: CHECKOUT_TITLE, noIndex: true });
  const root = useStores();
  const { search } = useLocation();
  const [machine, setMachine] = useState<PaddleCheckoutMachine | null>(null);

  useEffect(() => {
    // Paddle's hosts are allowed by the security policy the server sends with this page's own document only.
    if (!documentLoadedHere()) {
      root.assignLocation(window.location.href);
      return;
    }
    const params = parseCheckoutParams(new URLSearchParams(search), window.location.origin);
    const next = new PaddleCheckoutMachine(params, checkoutDeps(root));
    setMachine(next);
    void next.start();
    return () => next.dispose();
    // Deliberately not on `search`: the checkout is the one of the address the page was opened with.
  }, [root]);

  const phase: CheckoutPhase = machine?.phase ?? 'initializing';
  const view = views[phase];
  const busy = phase === 'initializing' || phase === 'checking';
  return (
    <Box sx={{ minHeight: '60vh', display: 'grid', placeItems: 'center' }}>
      <Paper
        variant="outlined"
        aria-busy={busy}
        data-phase={phase}
        sx={{
          p: { xs: 3, sm: 4 },
          width: '100%',
          maxWidth: 480,
          textAlign: 'center',
          bgcolor: 'rgba(11, 17, 32, 0.8)',
          borderColor: 'divider',
        }}
      >
        <Stack spacing={2} aria-live="polite" sx={{ alignItems: 'center' }}>
          <Box sx={{ color: view.color, display: 'flex', fontSize: 48 }}>
            {busy ? <CircularProgress size={44} aria-hidden /> : view.icon}
          </Box>
          <Typography variant="h5" component="h1">
            {view.title}
          </Typography>
          {machine?.message && phase !== 'cancelled' && (
            <Typography color="text.secondary">{machine.message}</Typography>
          )}
          {(phase === 'success' || phase === 'cancelled' || phase === 'error') && (
            <Typography variant="body2" color="text.secondary">
              {RETURNING}
            </Typography>
          )}
          {(phase === 'open' || phase === 'error') && (
            <Button variant="outlined" component={RouterLink} to={paths.plans}>
              {BACK_TO_PLANS}
            </Button>
          )}
        </Stack>
      </Paper>
    </Box>
  );
});

const views: Record<CheckoutPhase, { title: string; icon: ReactElement; color: string }> = {
  initializing: {
    title: CHECKOUT_INITIALIZING,
    icon: <LockOutlined fontSize="inherit" />,
    color: 'primary.main',
  },
  open: { title: CHECKOUT_OPEN, icon: <LockOutlined fontSize="inherit" />, color: 'primary.main' },
  checking: { title: CHECKOUT_CHECKING, icon: <LockOutlined fontSize="inherit" />, color: 'primary.main' },
  success: {
    title: CHECKOUT_SUCCESS,
    icon: <CheckCircleOutline fontSize="inherit" />,
    color: 'success.main',
  },
  cancelled: {
    title: CHECKOUT_CANCELLED,
    icon: <CancelOutlined fontSize="inherit" />,
    color: 'warning.main',
  },
  error: { title: CHECKOUT_ERROR, icon: <ErrorOutline fontSize="inherit" />, color: 'error.main' },
};

/** The real parts: Paddle.js, GET /subscription/payment-status, the toasts and the router. */
function checkoutDeps(root: RootStore): PaddleCheckoutDeps {
  return {
    loader: paddleLoader,
    frame: paddleFrame,
    verify: ({ sessionId, initialCredits }) => {
      const query = new URLSearchParams({ sessionId });
      if (initialCredits !== null) query.set('initialCredits', String(initialCredits));
      return root.api.get(`/subscription/payment-status?${query.toString()}`, paymentStatusSchema);
    },
    // The layout loaded the user (GET /users/me) on entry: its credits are the starting credits.
    startingCredits: async () => root.auth.user?.credits ?? null,
    userId: root.auth.user?.id ?? null,
    notify: toast,
    redirect: (url) => {
      const target = new URL(url, window.location.origin);
      if (target.origin === window.location.origin)
        root.navigate(target.pathname + target.search + target.hash, { replace: true });
      else root.assignLocation(target.href);
    },
  };
}

/**
 * Whether this document was loaded at /checkout/paddle (and so carries the policy that lets Paddle.js in),
 * rather than reached by a navigation inside a document loaded for another page.
 */
function documentLoadedHere(): boolean {
  const [entry] = performance.getEntriesByType?.('navigation') ?? [];
  if (!entry) return true;
  try {
    return new URL(entry.name).pathname.toLowerCase() === paths.checkoutPaddle;
  } catch {
    return true;
  }
}
