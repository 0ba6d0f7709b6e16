import Dns from '@mui/icons-material/DnsOutlined';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../routes/paths.ts';
import { DEPLOY_A_BOX, NO_BOX, YOUR_BOX } from '../../strings/dashboard.ts';
import { DashboardCard } from './DashboardCard.tsx';

export type YourBoxCardProps = Record<string, never>;

/**
 * The operator's box. Box data (hostname, status, 'Manage Power') arrives with the boxes feature; until
 * then the card shows the no-box state with its link to /box.
 */
export function YourBoxCard(_props: YourBoxCardProps) {
  return (
    <DashboardCard title={YOUR_BOX}>
      <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
        <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', color: 'text.secondary' }}>
          <Dns />
          <Typography>{NO_BOX}</Typography>
        </Stack>
        <Button variant="contained" component={RouterLink} to={paths.box}>
          {DEPLOY_A_BOX}
        </Button>
      </Stack>
    </DashboardCard>
  );
}
