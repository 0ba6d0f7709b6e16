/** Home page texts (commerce-and-content section 2, "Home"). */
export const HOME_TITLE = 'Live-Fire Hacking Arena';
export const HOME_HEADLINE = 'Own the box. Hold the line.';
export const HOME_LEAD =
  'Every operator gets a real Debian box with root, reached over a real VPN. Harden yours, breach theirs. No flags: a user shell is a foothold, a root shell means the system is owned.';
export const JACK_IN = 'Jack In';
export const CREATE_IDENTITY = 'Create Identity';
export const HOW_TO_PLAY = 'How to Play';
export const CREDITS_NOTE = 'About 1 USD buys 100 credits. Credits launch machines and fund attacks.';

export const featureBlurbs = [
  {
    title: 'Red Team',
    body: 'Hunt live operators on the Grid. Recon, exploit, escalate: a shell on their box is the only score that counts.',
  },
  {
    title: 'Blue Team',
    body: 'Your Debian box, your rules. Patch, lock down and watch your logs while real players try to break in.',
  },
  {
    title: 'Purple Team',
    body: 'Every attack leaves a kill chain. Replay the commands, learn the techniques and climb the leaderboard.',
  },
] as const;
