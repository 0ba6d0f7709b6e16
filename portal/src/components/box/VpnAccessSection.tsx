import { VPN_PROTOCOLS, type CapacityLevel, type VpnProtocol } from '@exploit-grid/api/contracts';
import Download from '@mui/icons-material/DownloadOutlined';
import GppBad from '@mui/icons-material/GppBadOutlined';
import GppMaybe from '@mui/icons-material/GppMaybeOutlined';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  CAPACITY_LABEL,
  CAPACITY_OFF,
  CAPACITY_UNKNOWN,
  VPN_ACCESS,
  VPN_ACCESS_INTRO,
  VPN_OFF,
  VPN_REVOKED_TEXT,
  VPN_REVOKED_TITLE,
  VPN_SAFETY_TEXT,
  VPN_SAFETY_TITLE,
  capacityLabels,
  downloadConfigLabel,
  poolExhausted,
  protocolHint,
  vpnConfigFileName,
} from '../../strings/box.ts';
import { DashboardCard } from '../dashboard/DashboardCard.tsx';
import { Stack } from '../Stack.tsx';
import { ConnectGuide } from './ConnectGuide.tsx';
import { TunnelStatus } from './TunnelStatus.tsx';

const capacityColor: Record<CapacityLevel, 'success' | 'warning' | 'error'> = {
  available: 'success',
  limited: 'warning',
  full: 'error',
};

export type VpnAccessSectionProps = Record<string, never>;

/**
 * Whether the player's tunnel is up (from where, at which VPN address), config downloads for UDP and TCP with
 * the capacity of each pool, and how to connect on Linux, macOS and Windows. Once the API says the access is
 * revoked, a permanent notice replaces all of it.
 */
export const VpnAccessSection = observer(function VpnAccessSection(_props: VpnAccessSectionProps) {
  const { box: boxes, auth } = useStores();
  const handle = auth.user?.handle ?? '';

  if (boxes.revoked) {
    return (
      <DashboardCard title={VPN_ACCESS}>
        <Alert severity="error" variant="outlined" icon={<GppBad />} data-testid="vpn-revoked">
          <AlertTitle>{VPN_REVOKED_TITLE}</AlertTitle>
          {VPN_REVOKED_TEXT}
        </Alert>
      </DashboardCard>
    );
  }

  return (
    <DashboardCard title={VPN_ACCESS}>
      <Stack spacing={2.5}>
        <Typography color="text.secondary">{VPN_ACCESS_INTRO}</Typography>
        <TunnelStatus />
        {boxes.vpnError && (
          <Alert severity="error" onClose={() => boxes.clearVpnError()}>
            {boxes.vpnError.message}
          </Alert>
        )}
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: 'repeat(auto-fit, minmax(240px, 1fr))' }}>
          {VPN_PROTOCOLS.map((protocol) => (
            <PoolCard key={protocol} protocol={protocol} />
          ))}
        </Box>
        <ConnectGuide configFile={vpnConfigFileName('UDP', handle)} ip={boxes.box?.ip ?? null} />
        <Alert severity="warning" variant="outlined" icon={<GppMaybe />} data-testid="vpn-safety">
          <AlertTitle>{VPN_SAFETY_TITLE}</AlertTitle>
          {VPN_SAFETY_TEXT}
        </Alert>
      </Stack>
    </DashboardCard>
  );
});

type PoolCardProps = { protocol: VpnProtocol };

/** One protocol: its capacity and its download; an exhausted pool cannot be downloaded from, and says why. */
const PoolCard = observer(function PoolCard({ protocol }: PoolCardProps) {
  const { box: boxes } = useStores();
  // With boxes off there is no VPN server at all: the pools are off, not full (and neither sends players to the other).
  const off = boxes.runtime !== null && !boxes.runtime.available;
  const pool = off ? null : (boxes.poolStatus?.[protocol === 'UDP' ? 'udp' : 'tcp'] ?? null);
  const exhausted = pool?.is_exhausted ?? false;
  const pending = boxes.isPending(protocol);
  return (
    <Paper
      variant="outlined"
      role="group"
      aria-label={`${protocol} VPN`}
      sx={{ p: 2, bgcolor: 'rgba(5, 7, 13, 0.6)', borderColor: 'divider' }}
    >
      <Stack
        direction="row"
        sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', gap: 1, mb: 1 }}
      >
        <Typography variant="h6" component="h3" sx={{ fontSize: '1rem' }}>
          {protocol}
        </Typography>
        <Chip
          size="small"
          variant="outlined"
          color={pool ? capacityColor[pool.capacity_level] : 'default'}
          label={`${CAPACITY_LABEL}: ${off ? CAPACITY_OFF : pool ? capacityLabels[pool.capacity_level] : CAPACITY_UNKNOWN}`}
          data-testid={`capacity-${protocol}`}
          data-level={off ? 'off' : (pool?.capacity_level ?? 'unknown')}
        />
      </Stack>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {protocolHint[protocol]}
      </Typography>
      <Button
        variant="contained"
        fullWidth
        startIcon={<Download />}
        disabled={off || exhausted || pending}
        loading={pending}
        onClick={() => void boxes.downloadConfig(protocol)}
      >
        {downloadConfigLabel(protocol)}
      </Button>
      {(off || exhausted) && (
        <Typography
          variant="caption"
          component="p"
          sx={{ mt: 1, color: off ? 'text.secondary' : 'error.main' }}
        >
          {off ? VPN_OFF : poolExhausted(protocol)}
        </Typography>
      )}
    </Paper>
  );
});
