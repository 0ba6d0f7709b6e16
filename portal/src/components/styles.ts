/** Styles shared by several components. */

/** Hidden on screen, read by screen readers (a page's heading over the globe, a table's action column). */
export const visuallyHidden = {
  position: 'absolute',
  width: 1,
  height: 1,
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
} as const;

/** Column headers of the data tables (Kill Chains, the leaderboard). */
export const tableHeaderCell = {
  bgcolor: 'background.paper',
  color: 'text.secondary',
  fontFamily: 'monospace',
  fontSize: '0.75rem',
  letterSpacing: '0.12em',
  textTransform: 'uppercase',
} as const;
