import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  TUNNEL_DOWN,
  TUNNEL_DOWN_HINT,
  TUNNEL_UP,
  VPN_CLIENT_CONNECTED,
  VPN_CLIENT_DISCONNECTED,
  tunnelUpFrom,
  tunnelVpnAddress,
} from '../../strings/box.ts';
import { Stack } from '../Stack.tsx';

export type TunnelStatusProps = Record<string, never>;

/**
 * Whether this player's tunnel is up now (the /vpn-status socket), from which address their computer connects
 * as the VPN server sees it, and their address on the VPN: their own VPN clients, which only they are told. A
 * live region: the change is read out when the tunnel comes up or goes down.
 */
export const TunnelStatus = observer(function TunnelStatus(_props: TunnelStatusProps) {
  const { box: boxes } = useStores();
  const up = boxes.vpnConnected;
  const live = boxes.myClients.filter((client) => client.isConnected);
  const from = live.find((client) => client.realAddress)?.realAddress ?? null;
  return (
    <Stack
      direction="row"
      spacing={1.5}
      role="status"
      aria-label={up ? VPN_CLIENT_CONNECTED : VPN_CLIENT_DISCONNECTED}
      data-connected={up}
      data-testid="tunnel-status"
      sx={{ alignItems: 'flex-start' }}
    >
      <Box
        component="span"
        aria-hidden
        sx={{
          width: 10,
          height: 10,
          mt: 0.9,
          borderRadius: '50%',
          flex: 'none',
          bgcolor: up ? 'success.main' : 'error.main',
        }}
      />
      <Box sx={{ minWidth: 0 }}>
        <Typography sx={{ fontWeight: 600 }} data-testid="tunnel-line">
          {up ? (from ? tunnelUpFrom(from) : TUNNEL_UP) : TUNNEL_DOWN}
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
          {up
            ? live
                .filter((client) => client.vpnIp)
                .map((client) => tunnelVpnAddress(client.protocol, client.vpnIp!))
                .join(' ')
            : TUNNEL_DOWN_HINT}
        </Typography>
      </Box>
    </Stack>
  );
});
