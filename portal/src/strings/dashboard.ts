/** Dashboard texts (core-app section 2, "Dashboard"). */
export const DASHBOARD_TITLE = 'Dashboard';
export const WELCOME_BACK = 'Welcome Back, Operator';
export const CURRENT_RANK = 'Current Rank';
export const ATTACKS_WON = 'Attacks Won';
export const DEFENSES_WON = 'Defenses Won';
export const RANK_MISSING = 'N/A';
export const YOUR_BOX = 'Your Box';
export const NO_BOX = 'No box provisioned.';
export const DEPLOY_A_BOX = 'Deploy a Box';
export const MANAGE_POWER = 'Manage Power';
export const RECENT_GRID_ACTIVITY = 'Recent Grid Activity';
export const NO_RECENT_ACTIVITY = 'No recent attack activity on the grid.';
export const BOX_STATUS = 'Box status';
/** Attacks the 'Recent Grid Activity' card shows (core-app section 9). */
export const RECENT_ATTACKS_LIMIT = 3;
/** Rows of the card's skeleton while the attacks load (core-app section 2). */
export const RECENT_SKELETON_ROWS = 5;
export const LOADING_RECENT_ACTIVITY = 'Loading recent grid activity';
/** One attack of the card: '{attacker handle} targeted {target handle}'. */
export const TARGETED = 'targeted';
