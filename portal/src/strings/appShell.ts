import { paths } from '../routes/paths.ts';

/** Texts of the authenticated layout (core-app section 2, "App layout"). */
export const BRAND_SHORT = 'EG';
export const ON_THE_GRID = 'On the Grid';
export const OFF_THE_GRID = 'Off the Grid';
export const COMING_SOON = 'Coming soon';
export const REDEEM_GIFT = 'Redeem Gift';
export const CREDIT_HISTORY = 'Credit history';
export const CREDITS_LABEL = 'Credits';
export const FREE_CREDITS_LABEL = 'Gift';
export const SETTINGS_LABEL = 'Settings';
export const LOGOUT_LABEL = 'Logout';
export const COLLAPSE_SIDEBAR = 'Collapse sidebar';
export const EXPAND_SIDEBAR = 'Expand sidebar';
export const SIDEBAR_LABEL = 'Main navigation';
/** The menu button of the top bar on phones and small tablets, and the drawer's own close button. */
export const OPEN_NAVIGATION = 'Open navigation';
export const CLOSE_NAVIGATION = 'Close navigation';
export const LOADING_USER = 'Loading your session';
/** The current user could not be loaded for a reason other than the session (server down, offline). */
export const USER_LOAD_FAILED = 'Could not reach the grid. Check your connection and try again.';
export const RETRY = 'Retry';

/**
 * The status of the top bar: the grid connection (the spec's badge), the VPN tunnel and the box, each on
 * its own, with what to do next when one is not up.
 */
export const STATUS_LABEL = 'Connection status';
export const GRID_LABEL = 'Grid';
export const VPN_LABEL = 'VPN';
export const BOX_LABEL = 'Box';
export const VPN_UP = 'VPN connected';
export const VPN_DOWN = 'VPN not connected';
export type BoxState = 'RUNNING' | 'STOPPED' | 'PROVISIONING' | 'CRASHED' | 'NONE';
export const BOX_STATE_TEXT: Record<BoxState, string> = {
  RUNNING: 'Box running',
  STOPPED: 'Box stopped',
  PROVISIONING: 'Box starting',
  CRASHED: 'Box crashed',
  NONE: 'No box yet',
};
export const GRID_DOWN_HINT = 'Reconnecting to the grid. Matchmaking and chat wait until it is back.';
export const VPN_DOWN_HINT = 'Download a VPN config on My Box and connect with OpenVPN.';
export const BOX_HINT: Partial<Record<BoxState, string>> = {
  NONE: 'Deploy a box on My Box.',
  STOPPED: 'Start it on My Box.',
  CRASHED: 'Restart it on My Box.',
  PROVISIONING: 'It is booting; this takes about a minute.',
};
export const statusSummary = (parts: readonly string[]) => `${STATUS_LABEL}: ${parts.join(', ')}`;

/** Socket `error` events (core-app section 8, "Socket toasts"). */
export const connectionErrorToast = (message: string) => `Connection error: ${message}`;

export type NavItem = { label: string; to: string; disabled?: boolean };

/** The sidebar, top to bottom; disabled entries show the 'Coming soon' tooltip. */
export const navItems: readonly NavItem[] = [
  { label: 'Dashboard', to: paths.dashboard },
  { label: 'My Box', to: paths.box },
  { label: 'Attack', to: paths.attack },
  { label: 'Chats', to: paths.chats },
  { label: 'Kill Chains', to: paths.history },
  { label: 'Leaderboard', to: paths.leaderboard },
  { label: 'Plans', to: paths.plans },
  { label: 'Learn', to: '/learn', disabled: true },
  { label: 'Jobs', to: '/jobs', disabled: true },
];

/** Routes whose content fills the area edge to edge (the globe, the redeem screen). */
export const unpaddedPathPrefixes: readonly string[] = [paths.attack, paths.redeem];

/** Balances with 2 decimals, '0.00' when unknown (core-app sections 2, 9). */
export function formatCredits(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(2) : '0.00';
}
