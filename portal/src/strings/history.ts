import type { AttackOutcome } from '@exploit-grid/api/contracts';

/** Kill Chains texts (core-app section 2 "History /history", section 4 outcome texts, section 8 "History"). */
export const HISTORY_TITLE = 'Kill Chains';
export const HISTORY_DESCRIPTION =
  'Every attack you launched and every one you defended: who, when, how it ended, and the commands that got there.';
/** How many attacks the page loads (the API's maximum). */
export const HISTORY_LIMIT = 100;

// Spec section 8, verbatim.
export const historyLoadFailed = (message: string) => `Failed to load attack history: ${message}`;
export const COMMAND_LOGS_FAILED = 'Failed to load command logs';
export const ATTACK_EVENTS_FAILED = 'Failed to load attack events';
export const NO_LOGS = 'No logs available for this attack.';

// The list.
export const ATTACK_HISTORY = 'Attack history';
export const COLUMN_ROLE = 'Role';
export const COLUMN_OPPONENT = 'Opponent';
export const COLUMN_OUTCOME = 'Outcome';
export const COLUMN_DATE = 'Date';
export const COLUMN_ACTIONS = 'Timeline';
export const ROLE_ATTACK = 'Attack';
export const ROLE_DEFENSE = 'Defense';
export const DETAILS = 'Details';
export const detailsLabel = (opponent: string) => `Details of the attack with ${opponent}`;
export const ATTACK_IN_PROGRESS = 'Attack is still in progress';
/** Beside the outcome of a fight that moved no MMR (the pair's rated fights of the day were used up). */
export const UNRATED = 'Unrated';
export const NO_BATTLES = 'No battles fought yet.';
export const LOADING_HISTORY = 'Loading attack history';
/** In place of the list when it could not be loaded (the toast says why). */
export const HISTORY_UNAVAILABLE = 'The attack history could not be loaded.';
export const RETRY = 'Retry';

/** The result texts of core-app section 4, for the winner and for the loser (the Grid's overlay). */
export const WINNER_TEXTS: Partial<Record<AttackOutcome, string>> = {
  OWNED: 'SYSTEM OWNED',
  FOOTHOLD: 'FOOTHOLD ESTABLISHED',
  DEFENDED: 'SYSTEM DEFENDED',
};
export const WINNER_DEFAULT_TEXT = 'VICTORY';
export const LOSER_TEXTS: Partial<Record<AttackOutcome, string>> = {
  OWNED: 'SYSTEM COMPROMISED',
  FOOTHOLD: 'SYSTEM BREACHED',
  TIMEOUT: 'ATTACK FAILED',
};
export const LOSER_DEFAULT_TEXT = 'DEFEAT';
/** The outcome table of commerce-and-content section 4: what the attacker and the defender see. */
export const OUTCOME_LABELS: Record<AttackOutcome, { attack: string; defense: string }> = {
  OWNED: { attack: 'Owned', defense: 'Was Owned' },
  FOOTHOLD: { attack: 'Foothold', defense: 'Was Breached' },
  DEFENDED: { attack: 'Defended', defense: 'Survived' },
  TIMEOUT: { attack: 'Timed Out', defense: 'Survived' },
  PENDING: { attack: 'In Progress', defense: 'In Progress' },
  CANCELLED: { attack: 'Lost Nerve', defense: 'Attacker Bailed' },
};

/** Outcomes as a third party reads them (the dashboard's recent activity). */
export const OUTCOME_NAMES: Record<AttackOutcome, string> = {
  OWNED: 'Owned',
  FOOTHOLD: 'Foothold',
  DEFENDED: 'Defended',
  TIMEOUT: 'Timeout',
  CANCELLED: 'Cancelled',
  PENDING: 'In Progress',
};

// The timeline modal.
export const ATTACK_TIMELINE = 'Attack Timeline';
export const TIMELINE_OPPONENT = 'Opponent';
export const TIMELINE_ROLE = 'Role';
export const TIMELINE_OUTCOME = 'Outcome';
export const TIMELINE_STARTED = 'Started';
export const TIMELINE_ENDED = 'Ended';
export const NOT_ENDED = '—';
export const TIMELINE_TARGET_IP = 'Target IP';
export const TIMELINE_SERVICES = 'Services';
/** Whether the target's services stayed up (90% of their checks passed): only then does a defence count. */
export const SERVICES_KEPT_UP = 'Kept up';
export const SERVICES_NOT_KEPT_UP = 'Not kept up: the defence does not count';
/** No services were checked (a box without a loadout, or none checked yet). */
export const NO_SERVICES_CHECKED = '—';
/** No address: the target's box is stopped or gone. */
export const NO_TARGET_IP = '—';
export const COPY_IP = 'IP address';
/** Core-app section 8 (history). */
export const COPY_IP_FAILED = 'Failed to copy IP address.';
export const LOADING_TIMELINE = 'Loading the timeline';
export const TIMELINE_ENTRIES = 'Timeline entries';
export const CLOSE = 'Close';
export const COMMAND_KIND = 'CMD';
/** A command line as the box saw it: `user@cwd $ command`. */
export const commandPrompt = (user: string, cwd: string) => `${user}@${cwd} $`;
