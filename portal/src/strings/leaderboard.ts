/** Leaderboard texts and constants (commerce-and-content spec: Leaderboard screen, constants, errors). */
export { LEADERBOARD_PAGE_SIZE } from '@exploit-grid/api/contracts';

export const LEADERBOARD_TITLE = 'Leaderboard';
export const LEADERBOARD_DESCRIPTION =
  "The Grid's operators ranked by MMR: attacks and defenses won, win rate and defense rate.";

/** Typing in the search box asks the server once the operator pauses this long (ms). */
export const SEARCH_DEBOUNCE_MS = 300;
/** The MMR shown for an operator the server sends none for. */
export const DEFAULT_MMR = 1000;
/** Rates above this percentage are shown in green. */
export const GOOD_RATE_ABOVE = 50;

// Spec, verbatim.
export const LEADERBOARD_LOAD_FAILED = 'Failed to load leaderboard.';

// The search box.
export const SEARCH_LABEL = 'Search operators';
export const SEARCH_PLACEHOLDER = 'Search by handle';

// The table.
export const LEADERBOARD_TABLE = 'Leaderboard';
export const COLUMN_RANK = 'Rank';
export const COLUMN_OPERATOR = 'Operator';
export const COLUMN_MMR = 'MMR';
export const COLUMN_ATTACKS = 'Attacks';
export const COLUMN_WIN_RATE = 'Win Rate';
export const COLUMN_DEFENSES = 'Defenses';
export const COLUMN_DEFENSE_RATE = 'Defense Rate';
/** The chip on the signed-in operator's own row. */
export const YOU = 'You';
export const NO_OPERATORS = 'No operators found.';
export const LOADING_LEADERBOARD = 'Loading the leaderboard';
/** In place of the table when it could not be loaded (the toast says so too). */
export const LEADERBOARD_UNAVAILABLE = 'The leaderboard could not be loaded.';
export const RETRY = 'Retry';

// Paging.
export const PREVIOUS = 'Previous';
export const NEXT = 'Next';
export const pageOf = (page: number, pages: number) => `Page ${page} of ${pages}`;

/** '57.1%': a percentage with one decimal. */
export const formatRate = (percent: number) => `${percent.toFixed(1)}%`;
/** 'won/total', as the Attacks and Defenses columns show it. */
export const formatRecord = (won: number, total: number) => `${won}/${total}`;
