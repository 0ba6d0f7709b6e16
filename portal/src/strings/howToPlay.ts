/** How-to-play texts (commerce-and-content section 2, "/how-to-play"; core-app section 1). */
export const HOW_TO_PLAY_TITLE = 'How to Play';
export const HOW_TO_PLAY_HEADLINE = 'The Art of Digital Warfare';
export const HOW_TO_PLAY_DURATION = 'About 5 minutes from sign-up to your first hunt.';
export const HOW_TO_PLAY_VIDEO_LABEL = 'Walkthrough video coming soon';
export const HOW_TO_PLAY_CTA = 'Create Identity';

export const howToPlaySteps = [
  {
    title: 'Provision Your Fortress',
    body: 'Deploy your own Debian VM. It is yours alone, reached over your personal VPN.',
  },
  {
    title: 'Harden Your Steel',
    body: 'You have full root. Patch services, tighten configs and close the doors before anyone comes knocking.',
  },
  {
    title: 'Enter the Grid',
    body: 'Go live and get assigned targets: real players, online now, with boxes of their own.',
  },
  {
    title: 'The Hunt is On',
    body: 'Use real techniques to gain shell access. There are no flags: the platform sees your shell.',
  },
  {
    title: 'Claim Victory & Evolve',
    body: 'Every breach earns points and moves your leaderboard rank. Every defence does too.',
  },
] as const;
