/**
 * Texts and timings of the Grid (/attack) and its notifications: core-app sections 2 ("The Grid"), 4
 * (matchmaking, attack, PVP), 5 (queueing rules), 8 (grid and socket toasts) and 9 (constants).
 */

export const GRID_TITLE = 'The Grid';
export const GRID_DESCRIPTION =
  'The live globe of Exploit Grid: operators online, attacks in flight, matchmaking and PVP challenges.';

// ---- timings (core-app section 9) -----------------------------------------------------------

export const ESTIMATE_POLL_MS = 10_000;
export const QUEUE_TICK_MS = 1_000;
export const DEFAULT_QUEUE_ESTIMATE_SECONDS = 3;
export const MATCH_COUNTDOWN_MS = 500;
export const MATCH_FOUND_TOAST_MS = 8_000;
export const MATCH_EXPIRED_TOAST_MS = 6_000;
export const NO_MATCH_TOAST_MS = 8_000;
export const QUEUE_JOINED_TOAST_MS = 5_000;
export const PVP_PROMPT_MS = 30_000;
export const OUTCOME_OVERLAY_MS = 5_000;
/** Selecting a player: the camera moves after this delay... */
export const CAMERA_DELAY_MS = 500;
/** ...to this altitude (globe radii)... */
export const CAMERA_ALTITUDE = 1.5;
/** ...over this long. */
export const CAMERA_MOVE_MS = 2_000;

/** Raised on `window` when a match ends for a reason other than the opponent leaving (core-app section 7). */
export const CLEAR_QUEUE_STATE_EVENT = 'clearQueueState';

export const SOUNDS = {
  underAttack: '/sounds/under_attack.wav',
  chatRequest: '/sounds/chat_request.wav',
  victory: '/sounds/victory.wav',
  defeat: '/sounds/defeat.wav',
} as const;

// ---- Find a Mark and the queue ---------------------------------------------------------------

export const FIND_A_MARK = 'Find a Mark';
export const GRID_NOT_READY = 'Grid connection not ready. Please wait a moment and try again.';
export const VPN_REQUIRED_TO_QUEUE = 'You must be connected to the VPN to queue.';
export const QUEUE_JOIN_FAILED = 'Could not join matchmaking queue. Please try again.';
export const QUEUE_JOINED = 'Searching the grid for a mark.';
export const QUEUE_LEAVE_FAILED = 'Could not leave the queue. Please try again.';
export const QUEUE_TITLE = 'Searching for a mark';
/** The place the join answered (the estimate poll tells no place): said as such. */
export const queuePosition = (position: number) => `Joined the queue at position ${position}`;
export const queueEstimate = (seconds: number) =>
  seconds > 0 ? `Estimated wait: ${formatSeconds(seconds)}` : 'Any moment now…';
export const LEAVE_QUEUE = 'Leave Queue';
/** Why Find a Mark is disabled, for its tooltip. */
export const FIND_DISABLED = {
  connecting: 'Connecting to the grid…',
  queued: 'You are already searching.',
  matched: 'A match is waiting for you.',
  attacking: 'Finish your current attack first.',
  defending: 'You are under attack.',
  noBox: 'Your box must be running to queue.',
  noVpn: 'Connect to the VPN to queue.',
} as const;
/** The link beside a setup reason (no box running, no VPN): where to fix it. */
export const FIX_ON_MY_BOX = 'Go to My Box';

// ---- match found ----------------------------------------------------------------------------

export const MATCH_FOUND_TITLE = 'Match Found';
export const matchFoundToast = (handle: string) => `Match found: ${handle}. Press Engage to start.`;
export const matchRole = (role: 'attacker' | 'defender') =>
  role === 'attacker' ? 'You attack. Get a shell on their box.' : 'You defend. Keep them out of your box.';
export const matchCountdown = (seconds: number) => `Expires in ${seconds}s`;
export const ENGAGE = 'Engage';
export const DISMISS = 'Dismiss';
export const WAITING_FOR_OPPONENT = 'Engaged. Waiting for your opponent…';
export const ENGAGE_FAILED = 'Failed to engage';
export const DISMISS_FAILED = 'Failed to dismiss match properly, but cleared from UI.';
export const MATCH_EXPIRED_NO_RESPONSE = 'Match expired. No response. You can try queueing again.';
export const MATCH_EXPIRED_TEXTS = {
  OPPONENT_LEFT: 'Opponent left the match. You remain in queue.',
  OPPONENT_DISMISSED: 'Opponent dismissed the match. Click "Find a Mark" to search again.',
  EXPIRED: 'Match proposal expired. Click "Find a Mark" to search again.',
} as const;

// ---- attacks --------------------------------------------------------------------------------

export const TARGET_ACQUIRED = 'Target Acquired';
export const ACTIVE_ATTACK = 'Active Attack';
export const UNDER_ATTACK = 'Under Attack';
export const underAttackBy = (handle: string) =>
  `${handle} is attacking your box. Harden it and hunt them down.`;
export const TOO_HARD = 'Too Hard For Me';
export const attackCancelFailed = (message: string) => `Failed to cancel attack: ${message}`;
export const ATTACK_CALLED_OFF = 'Attack called off.';
/** An unrated fight (docs/game-rules.md, the pair cap): said on its cards and its result. */
export const UNRATED_FIGHT = 'Unrated: you two have had 3 rated fights in the last 24 hours. No MMR moves.';
export const UNRATED_RESULT = 'Unrated: no MMR moved.';
export const timeLeft = (seconds: number) => `Time left: ${formatSeconds(seconds)}`;
export const TARGET_LABELS = {
  target: 'Target',
  hostname: 'Hostname',
  ip: 'IP',
  ports: 'Open ports',
  status: 'Box status',
  noIp: 'Waiting for an address…',
  noPorts: 'None seen yet',
} as const;
export const ATTACK_HINT = 'Over the VPN: get a shell on the box (FOOTHOLD), then root (OWNED).';
export const SERVICES_CHECKED = 'Services checked';
export const SERVICES_DEFENDER_HINT =
  'The platform checks these from your attacker’s side of the VPN. Keep them working while you fix them: one that stays down past the grace period forfeits your defence.';
export const SERVICES_ATTACKER_HINT =
  'The defender must keep these working: one that stays down past the grace period forfeits their defence.';
export const serviceChip = (s: { name: string; port: number; up: boolean | null }) =>
  `${s.port}/${s.name}: ${s.up === null ? 'unchecked' : s.up ? 'up' : 'down'}`;

// ---- target popup ---------------------------------------------------------------------------

export const LOCATION_UNKNOWN = 'Location Unknown';
export const TARGET_INFO_FAILED = 'Could not load target details.';
/** The target's published services, as a scan would list them: '22/SSH · 8080/NetDiag'. */
export const targetPortsLabel = (ports: readonly { port: number; name: string }[]) =>
  ports.length === 0
    ? 'Ports: none published'
    : `Ports: ${ports.map((p) => `${p.port}/${p.name}`).join(' · ')}`;
export const defenseLabel = (percent: number | null) =>
  percent === null ? 'Defense: …' : `Defense: ${percent.toFixed(0)}%`;
export const mmrLabel = (mmr: number) => `MMR ${mmr}`;
export const PVP = 'PVP';
export const CHAT = 'Chat';
export const BLOCK = 'Block';
export const UNBLOCK = 'Unblock';
export const PVP_NEEDS_VPN = 'Connect to the VPN to challenge.';
export const THIS_IS_YOU = 'This is you.';
export const pvpSent = (handle: string) => `Challenge sent to ${handle}.`;
export const CLOSE = 'Close';

// ---- PVP ------------------------------------------------------------------------------------

export const PVP_INCOMING_TITLE = 'PVP Challenge';
export const pvpIncoming = (handle: string, mmr: number) =>
  `${handle} (MMR ${mmr}) challenges you: they attack, you defend.`;
export const ACCEPT = 'Accept';
export const DECLINE = 'Decline';
export const pvpAccepted = (handle: string) => `${handle} accepted your challenge. Engage!`;
export const pvpDeclined = (handle: string) => `${handle} declined your PVP request.`;

// ---- outcome overlay and notifications --------------------------------------------------------

/** The line under the overlay's headline (core-app section 4 says what OWNED and FOOTHOLD mean). */
export function outcomeDetail(outcome: string, won: boolean, opponent: string): string {
  if (outcome === 'OWNED')
    return won ? `Complete control of ${opponent}'s box.` : `${opponent} took root on your box.`;
  if (outcome === 'FOOTHOLD')
    return won ? `User-level access to ${opponent}'s box.` : `${opponent} got a shell on your box.`;
  return won ? `${opponent} could not break you.` : `${opponent}'s box held.`;
}
export const notificationText = (title: string, body: string) => `${title}: ${body}`;

// ---- page -----------------------------------------------------------------------------------

export const OPERATORS_ONLINE = 'Operators online';
/** The tabs under the globe on phones: the chat and the operators online. */
export const GRID_SHEETS = 'Chat and operators';
export const NO_OPERATORS = 'Nobody else is on the grid right now.';
/** The operators list shows the best this many by MMR (and the one picked). */
export const PLAYER_LIST_MAX = 100;
export const moreOnTheGlobe = (count: number) => `and ${count} more on the globe`;
export const NO_WEBGL =
  'Your browser cannot show the globe (WebGL is unavailable). The grid still works: pick operators from the list.';
export const GLOBE_LOADING = 'Loading the globe…';
export const GEO_ATTRIBUTION = 'IP geolocation by DB-IP';
export const GEO_ATTRIBUTION_URL = 'https://db-ip.com';
export const YOU = 'You';

export function formatSeconds(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}
