import Dns from '@mui/icons-material/DnsOutlined';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../routes/paths.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import { FETCH_BOX_FAILED } from '../../strings/box.ts';
import { BOX_STATUS, DEPLOY_A_BOX, MANAGE_POWER, NO_BOX, YOUR_BOX } from '../../strings/dashboard.ts';
import { BoxCost } from '../box/BoxCost.tsx';
import { StatusDot } from '../box/BoxStatus.tsx';
import { Stack } from '../Stack.tsx';
import { DashboardCard } from './DashboardCard.tsx';

export type YourBoxCardProps = Record<string, never>;

/**
 * The operator's box (core-app section 2, "Dashboard"): hostname, status with a green dot while RUNNING
 * (red otherwise) and 'Manage Power' to /box; without a box 'No box provisioned.' and 'Deploy a Box'. The
 * dashboard loads the box; one saved with the session shows meanwhile.
 */
export const YourBoxCard = observer(function YourBoxCard(_props: YourBoxCardProps) {
  const { box: boxes } = useStores();
  const box = boxes.box;

  if (box) {
    return (
      <DashboardCard title={YOUR_BOX}>
        <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
          <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', minWidth: 0 }}>
            <Dns sx={{ color: 'primary.main' }} />
            <Typography
              data-testid="box-hostname"
              sx={{ fontFamily: 'monospace', fontWeight: 700, wordBreak: 'break-all' }}
            >
              {box.hostname}
            </Typography>
          </Stack>
          <Stack
            direction="row"
            spacing={1}
            role="status"
            aria-label={BOX_STATUS}
            sx={{ alignItems: 'center' }}
          >
            <StatusDot status={box.status} />
            <Typography variant="body2" sx={{ fontFamily: 'monospace', letterSpacing: '0.08em' }}>
              {box.status}
            </Typography>
          </Stack>
          <BoxCost />
          <Button variant="outlined" component={RouterLink} to={paths.box}>
            {MANAGE_POWER}
          </Button>
        </Stack>
      </DashboardCard>
    );
  }

  if (boxes.loadStatus === 'idle' || boxes.loadStatus === 'loading') {
    return (
      <DashboardCard title={YOUR_BOX}>
        <Stack spacing={1.5} data-testid="box-card-loading">
          <Skeleton variant="text" width="60%" />
          <Skeleton variant="text" width="35%" />
          <Skeleton variant="rounded" width={140} height={36} />
        </Stack>
      </DashboardCard>
    );
  }

  const failed = boxes.loadStatus === 'failed';
  return (
    <DashboardCard title={YOUR_BOX}>
      <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
        <Stack
          direction="row"
          spacing={1.5}
          sx={{ alignItems: 'center', color: failed ? 'error.main' : 'text.secondary' }}
        >
          <Dns />
          <Typography>{failed ? FETCH_BOX_FAILED : NO_BOX}</Typography>
        </Stack>
        {failed ? (
          <Button variant="outlined" component={RouterLink} to={paths.box}>
            {MANAGE_POWER}
          </Button>
        ) : (
          <>
            <BoxCost />
            <Button variant="contained" component={RouterLink} to={paths.box}>
              {DEPLOY_A_BOX}
            </Button>
          </>
        )}
      </Stack>
    </DashboardCard>
  );
});
