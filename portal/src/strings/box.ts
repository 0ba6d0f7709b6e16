import { BOX_MESSAGES, type CapacityLevel, type VpnProtocol } from '@exploit-grid/api/contracts';

/** My Box texts (core-app section 2 "My Box", section 8 "Box"). */
export const MY_BOX_TITLE = 'My Box';
export const MY_BOX_DESCRIPTION =
  'Your personal Debian box with root access and your VPN access: download a config, connect, and harden your box before the grid finds it.';

// Spec section 8, verbatim.
export const FETCH_BOX_FAILED = 'Failed to fetch box information.';
export const CREATE_BOX_FAILED = 'Failed to create box.';
export const STOP_BOX_FAILED = 'Failed to stop box.';
export const START_BOX_FAILED = 'Failed to start box.';
export const DELETE_BOX_FAILED = 'Failed to delete box.';
export const vpnConfigFailed = (protocol: VpnProtocol) => `Failed to get VPN config for ${protocol}.`;
export const VPN_REVOKED_MESSAGE = BOX_MESSAGES.vpnRevoked;
export const DAILY_LIMIT_MESSAGE = BOX_MESSAGES.dailyLimit;
/** Shown while the box runs and no VPN client is connected yet (spec section 2). */
export const PREPARING = 'Preparing...';

// VPN Access section.
export const VPN_ACCESS = 'VPN Access';
export const VPN_ACCESS_INTRO =
  'Your box and every target live on the arena network. Download a config and connect with OpenVPN to reach them.';
export const downloadConfigLabel = (protocol: VpnProtocol) => `Download ${protocol} config`;
export const protocolHint: Record<VpnProtocol, string> = {
  UDP: 'Faster; use it unless your network blocks UDP.',
  TCP: 'Works through restrictive firewalls.',
};
export const CAPACITY_LABEL = 'Capacity';
export const capacityLabels: Record<CapacityLevel, string> = {
  available: 'Available',
  limited: 'Limited',
  full: 'Full',
};
export const CAPACITY_UNKNOWN = 'Unknown';
export const poolExhausted = (protocol: VpnProtocol) =>
  `The ${protocol} pool is full right now. Try ${protocol === 'UDP' ? 'TCP' : 'UDP'} or come back later.`;
export const VPN_CLIENT_CONNECTED = 'VPN client connected';
export const VPN_CLIENT_DISCONNECTED = 'No VPN client connected';
export const connectedClient = (protocol: VpnProtocol, vpnIp: string | null) =>
  vpnIp ? `${protocol} client at ${vpnIp}` : `${protocol} client`;
export const HOW_TO_CONNECT = 'How to connect';
export const CONNECT_STEP_DOWNLOAD = 'Download a config above.';
export const CONNECT_STEP_VPN = 'Connect to the VPN:';
export const CONNECT_STEP_SSH = 'Log in to your box as root:';
export const openVpnCommand = (configFile: string) => `sudo openvpn --config ${configFile}`;
export const sshCommand = (ip: string | null) => `ssh root@${ip ?? '<ip>'}`;
/** The downloaded config: the lowercased protocol and the handle (spec section 7). */
export const vpnConfigFileName = (protocol: VpnProtocol, handle: string) =>
  `${protocol.toLowerCase()}_${handle}.ovpn`;
/** What boxes may do to the player's computer over the VPN (docs/boxes.md, access control). */
export const VPN_SAFETY_TITLE = 'Play from a dedicated VM';
export const VPN_SAFETY_TEXT =
  'Boxes only answer connections you open: your own box can never connect to your computer. While you attack a box, that box can connect back to you (reverse shells are part of the game), and so can whoever controls it. Connect from a virtual machine you use only for the grid.';
export const VPN_REVOKED_TITLE = 'VPN access revoked';
export const VPN_REVOKED_TEXT =
  'Your VPN access has been permanently revoked. VPN configs can no longer be downloaded for this account.';

// My Personal Box section.
export const MY_PERSONAL_BOX = 'My Personal Box';
export const DEPLOY_TITLE = 'Deploy your box';
export const DEPLOY_TEXT =
  'Deploy a dedicated Debian machine with root access. Harden it before you enter the grid: other operators will try to get a shell on it, and you will hunt theirs.';
export const CREATE_BOX = 'Create Box';
export const CREATING_BOX = 'Creating...';
export const ADD_SSH_KEY = 'Add an SSH public key (optional)';
export const SSH_KEY_LABEL = 'SSH public key';
export const SSH_KEY_HELP = 'Installed for root next to the password, e.g. "ssh-ed25519 AAAA... you@host".';
export const HOSTNAME_LABEL = 'Hostname';
export const IP_LABEL = 'IP address';
export const STATUS_LABEL = 'Status';
export const ROOT_PASSWORD_LABEL = 'Root password';
export const SHOW_PASSWORD = 'Show password';
export const HIDE_PASSWORD = 'Hide password';
export const HIDDEN_PASSWORD = '••••••••••••';
export const copyLabel = (what: string) => `Copy ${what}`;
export const COPIED = 'Copied';
/** How long the 'copied' indicator stays (spec section 9). */
export const COPIED_INDICATOR_MS = 2000;
export const COPY_FAILED = 'Could not copy to the clipboard.';
export const NO_IP_YET = 'Not assigned yet';
export const ACCUMULATED_TIME = 'Accumulated time';
export const LAST_POWERED = 'Last powered';
export const NEVER_POWERED = 'Never';
export const OPEN_PORTS = 'Open ports';
export const NO_OPEN_PORTS = 'No open ports detected.';
export const DAILY_TIME_LEFT = 'Daily time left';
export const DAILY_TIME_HINT = 'BASIC plan: box time is limited per day.';
export const BOX_READY = 'Ready';
export const PREPARING_HINT = 'Waiting for your VPN client. Connect with one of the configs above.';
export const READY_HINT = 'Your VPN is connected. Log in with:';
export const PROVISIONING = 'Provisioning your box...';
export const buildingImage = (percent: number) => `Building the base image: ${percent}%`;
export const CRASHED_TEXT = 'Your box crashed. Start it again to bring it back.';
export const STOPPED_TEXT = 'Your box is stopped. Start it to play.';
export const START_BOX = 'Start';
export const STOP_BOX = 'Stop';
export const DELETE_BOX = 'Delete';
export const STARTING = 'Starting...';
export const STOPPING = 'Stopping...';
export const DELETING = 'Deleting...';
export const DELETE_DIALOG_TITLE = 'Delete your box?';
export const DELETE_DIALOG_TEXT =
  'Deletion is permanent: the box, its files and everything you hardened are gone for good, and this cannot be undone.';
export const CANCEL = 'Cancel';
export const CONFIRM_DELETE = 'Delete permanently';
export const BOX_UNAVAILABLE = 'Boxes are unavailable';
export const LOADING_BOX = 'Loading your box';
export const RETRY = 'Retry';
