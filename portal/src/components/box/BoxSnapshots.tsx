import { TIER_PERKS } from '@exploit-grid/api/contracts';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { Link as RouterLink } from 'react-router';
import { useStores } from '../../stores/StoresContext.tsx';
import { SEE_PLANS, SNAPSHOTS_INTRO, SNAPSHOTS_NOT_IN_TIER, SNAPSHOTS_TITLE } from '../../strings/box.ts';

import { SnapshotManager } from './SnapshotManager.tsx';

/**
 * The box's snapshots (the tier's slots): what they are, then the snapshots themselves, or on BASIC which
 * plans have them. My Box loads it on its own (a chunk of its own), below the box's details.
 */
export const BoxSnapshots = observer(function BoxSnapshots() {
  const { auth } = useStores();
  const tier = auth.user?.subscription.tier ?? 'BASIC';
  return (
    <Box role="group" aria-label={SNAPSHOTS_TITLE} data-testid="box-snapshots">
      <Typography variant="overline" component="p" sx={{ color: 'text.secondary', lineHeight: 1.8 }}>
        {SNAPSHOTS_TITLE}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
        {SNAPSHOTS_INTRO}
      </Typography>
      {TIER_PERKS[tier].snapshotSlots === 0 ? (
        <Alert
          severity="info"
          variant="outlined"
          action={
            <Button component={RouterLink} to="/plans" color="inherit" size="small">
              {SEE_PLANS}
            </Button>
          }
        >
          {SNAPSHOTS_NOT_IN_TIER}
        </Alert>
      ) : (
        <SnapshotManager />
      )}
    </Box>
  );
});
