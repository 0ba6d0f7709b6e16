/** Styles shared by several components. */

/** Hidden on screen, read by screen readers (a page's heading over the globe, a table's action column). */
export const visuallyHidden = {
  position: 'absolute',
  // Strings: in `sx` a bare 1 means 100%, which let long hidden texts widen the page.
  width: '1px',
  height: '1px',
  margin: '-1px',
  padding: 0,
  border: 0,
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
