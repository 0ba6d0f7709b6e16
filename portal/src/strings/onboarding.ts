import type { OnboardingStep } from '@exploit-grid/api/contracts';

/** The dashboard's first-hour checklist and first-visit wording (ours; docs/onboarding.md). */

/** The greeting until the checklist is complete (the spec's 'Welcome Back, Operator' is for returning players). */
export const WELCOME = 'Welcome, Operator';
/** The rank card before the player's first fight: the leaderboard places everyone, the dashboard waits for a fight. */
export const UNRANKED = 'Unranked';
export const UNRANKED_HINT = 'You get a rank after your first fight.';

export const CHECKLIST_TITLE = 'Your first hour';
/** No count: the server leaves out steps it cannot see where the grid runs (the ssh login, on Kubernetes). */
export const CHECKLIST_INTRO =
  'From a fresh account to your first fight. Each step ticks itself as soon as the grid sees you do it.';
export const checklistProgress = (done: number, total: number) => `${done} of ${total} done`;
export const STEP_DONE = 'Done';
export const STEP_OPEN = 'Not done yet';

export type ChecklistEntry = { title: string; how: string; action: string };

/** What each step asks and where the player does it (the link's text). */
export const checklistSteps: Record<OnboardingStep, ChecklistEntry> = {
  BOX_DEPLOYED: {
    title: 'Deploy your box',
    how: 'Create your Debian box on My Box and start it.',
    action: 'Go to My Box',
  },
  VPN_CONFIG_DOWNLOADED: {
    title: 'Download your VPN config',
    how: 'Your box and every target are only reachable through the VPN. Download the UDP config (or TCP on strict networks).',
    action: 'Get a config',
  },
  TUNNEL_UP: {
    title: 'Bring your tunnel up',
    how: 'Connect with OpenVPN on Linux, Tunnelblick or OpenVPN Connect on macOS, or OpenVPN Connect on Windows.',
    action: 'How to connect',
  },
  FIRST_SSH: {
    title: 'Log in to your box',
    how: 'Over the tunnel, ssh to your box as root with the password shown on My Box, and start hardening it.',
    action: 'See the ssh command',
  },
  FIRST_MATCH: {
    title: 'Fight your first match',
    how: 'On the Grid, press Find a Mark (or challenge a player) and Engage. Win or lose, you are ranked from then on.',
    action: 'Go to the Grid',
  },
};
