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
/** Boxes are off on this platform: so is the VPN that would reach them. */
export const CAPACITY_OFF = 'Off';
export const VPN_OFF = 'The VPN is off while boxes are unavailable on this platform.';
export const poolExhausted = (protocol: VpnProtocol) =>
  `The ${protocol} pool is full right now. Try ${protocol === 'UDP' ? 'TCP' : 'UDP'} or come back later.`;
export const VPN_CLIENT_CONNECTED = 'VPN client connected';
export const VPN_CLIENT_DISCONNECTED = 'No VPN client connected';

// Your tunnel, live: whether it is up now, from where, and the player's address on the VPN.
export const TUNNEL_UP = 'Your tunnel is up';
export const tunnelUpFrom = (address: string) => `Your tunnel is up from ${address}`;
export const tunnelVpnAddress = (protocol: VpnProtocol, vpnIp: string) =>
  `Your VPN address is ${vpnIp} (${protocol}).`;
export const TUNNEL_DOWN = 'Your tunnel is down';
export const TUNNEL_DOWN_HINT =
  'Connect with a config below: this line turns green within seconds of your client connecting.';

// How to connect, for the player's computer.
export const HOW_TO_CONNECT = 'How to connect';
export const CONNECT_SYSTEMS_LABEL = 'Your computer';
export type ConnectSystem = 'linux' | 'macos' | 'windows';
export const CONNECT_SYSTEMS: readonly ConnectSystem[] = ['linux', 'macos', 'windows'];
export const systemNames: Record<ConnectSystem, string> = {
  linux: 'Linux',
  macos: 'macOS',
  windows: 'Windows',
};
/** One step of the guide: what to do, a command to type, or links to where a client is downloaded. */
export type ConnectStep = { text: string; command?: string; links?: { label: string; href: string }[] };
const TUNNELBLICK = { label: 'Tunnelblick', href: 'https://tunnelblick.net/' };
const OPENVPN_CONNECT = { label: 'OpenVPN Connect', href: 'https://openvpn.net/client/' };
const OPENVPN_GUI = { label: 'OpenVPN GUI', href: 'https://openvpn.net/community-downloads/' };
const DOWNLOAD_STEP = 'Download a config above: UDP, or TCP if your network blocks UDP.';
/** The steps on each system, with the player's config file name and box address. */
export function connectSteps(system: ConnectSystem, configFile: string, ip: string | null): ConnectStep[] {
  switch (system) {
    case 'linux':
      return [
        { text: DOWNLOAD_STEP },
        {
          text: 'Install OpenVPN from your distribution, on Debian or Ubuntu with:',
          command: 'sudo apt install openvpn',
        },
        { text: 'Connect, and leave it running:', command: openVpnCommand(configFile) },
        { text: 'In another terminal, log in to your box as root:', command: sshCommand(ip) },
      ];
    case 'macos':
      return [
        { text: DOWNLOAD_STEP },
        { text: 'Install a free OpenVPN client:', links: [TUNNELBLICK, OPENVPN_CONNECT] },
        {
          text: `Tunnelblick: double-click ${configFile}, install it, then choose Connect from its icon in the menu bar. OpenVPN Connect: Import Profile, then File, pick ${configFile} and connect.`,
        },
        { text: 'In Terminal, log in to your box as root:', command: sshCommand(ip) },
      ];
    case 'windows':
      return [
        { text: DOWNLOAD_STEP },
        {
          text: 'Install a free OpenVPN client (it asks for administrator rights once):',
          links: [OPENVPN_CONNECT, OPENVPN_GUI],
        },
        {
          text: `OpenVPN Connect: Import Profile, then File, pick ${configFile} and connect. OpenVPN GUI: right-click its icon in the notification area, choose Import file… and ${configFile}, then Connect.`,
        },
        {
          text: 'In PowerShell or Windows Terminal (Windows 10 and 11 come with ssh), log in to your box as root:',
          command: sshCommand(ip),
        },
      ];
  }
}
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
// Reset: a fresh system and a new loadout (docs/catalogue.md).
export const RESET_BOX = 'Reset';
export const RESETTING = 'Resetting...';
export const RESET_BOX_FAILED = 'Failed to reset box.';
export const RESET_DIALOG_TITLE = 'Reset your box?';
export const RESET_DIALOG_TEXT =
  'Its disk is wiped: everything you changed on it is lost, and it gets a new set of services to defend. The hostname, address and root password stay (ssh will warn that the host key changed). The box powers off.';
export const CONFIRM_RESET = 'Reset the box';
export const BOX_UNAVAILABLE = 'Boxes are unavailable';
export const LOADING_BOX = 'Loading your box';
export const RETRY = 'Retry';

// The services of the box's loadout (docs/catalogue.md): what they are, never their weaknesses.
export const SERVICES_TITLE = 'Services to keep up';
export const SERVICES_INTRO =
  'Your box came with these services. Other operators will try to break in through them: find their weaknesses and fix them, but keep every service doing its job. The platform checks each one, as a client would, during every attack on your box.';
export const SERVICES_START =
  'To start: connect the VPN, log in with ssh, and look around: what runs, as which user, and what it trusts.';
export const NO_SERVICES = 'This box has no services to keep up: it was made before boxes came with them.';
export const SERVICE_LISTENING = 'Listening';
export const SERVICE_NOT_LISTENING = 'Not listening';
export const servicePort = (port: number) => `port ${port}`;

// Snapshots: the tiers' snapshot slots (docs/boxes.md).
export const SNAPSHOTS_TITLE = 'Snapshots';
export const SNAPSHOTS_INTRO =
  'A snapshot saves your box’s disk as it is now, your hardening included, with its services. Restoring one powers the box off and puts that disk back in place of the current one: after a reset, or a fix that went wrong.';
export const SNAPSHOTS_NOT_IN_TIER = 'Snapshots come with the HACKER, ELITE and TEAM plans.';
export const SEE_PLANS = 'See plans';
