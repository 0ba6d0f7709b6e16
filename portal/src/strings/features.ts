/** The Grid (/features) texts (commerce-and-content section 2, "/features (titled The Grid)"). */
export const FEATURES_TITLE = 'The Grid';
export const FEATURES_LEAD =
  'Real Debian boxes, a real VPN and real shells, refereed without flags. Attack, defend, or learn both.';

/** The three ways to play, as cards. */
export const teamCards = [
  {
    team: 'Red Team',
    body: 'Break into live players’ boxes with real techniques. A user shell is a foothold; root is owned.',
  },
  {
    team: 'Blue Team',
    body: 'Harden the box you hold root on: fix its services without breaking them, and watch who comes in.',
  },
  {
    team: 'Purple Team',
    body: 'Do both in turn, and read every fight’s kill chain to learn what worked on each side.',
  },
] as const;

/** The six sections, in the spec's order. */
export const featureSections = [
  {
    title: 'Offensive Arsenal',
    body: 'Every box runs real, vulnerable services: web apps, datastores, FTP, weak accounts, and ways up to root. Your own tools, over your own VPN.',
  },
  {
    title: 'Defensive Operations',
    body: 'Full root on your Debian box. The platform checks your services during every attack: fix the weakness, keep the service up.',
  },
  {
    title: 'Intelligence Platform',
    body: 'Kill-chain history of every attack, a timeline of each fight, and an MMR leaderboard with attack and defence rates.',
  },
  {
    title: 'Tactical Communications',
    body: 'Global and private chat with the operators on the Grid: chat requests, blocking, and plain text only.',
  },
  {
    title: 'Live Operations',
    body: 'A live globe of who is online and who is attacking whom, matchmaking by rating, and challenges between players.',
  },
  {
    title: 'Choose Your Path',
    body: 'Start free on the basic tier with a box of your own. Add credits for more box time; higher plans bring snapshot slots.',
  },
] as const;

/** Besides the site's Create Identity and Jack In (strings/home.ts). */
export const FEATURES_PRICING = 'See Pricing';
