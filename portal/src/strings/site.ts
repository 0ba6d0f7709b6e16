/** Site-wide texts and limits (core-app sections 2, 9; commerce-and-content sections 2, 9). */
export const SITE_NAME = 'Exploit Grid';
export const SITE_DESCRIPTION =
  'Exploit Grid is a live-fire hacking arena: your own Debian box with root, a real VPN, and real players to attack and defend. No flags: a shell is the score.';
export const DESCRIPTION_MAX_LENGTH = 160;
/** The default picture of shared links (Open Graph, Twitter cards): made for the product, 1200×630. */
export const SOCIAL_IMAGE_PATH = '/social-card.png';
export const SOCIAL_IMAGE_WIDTH = 1200;
export const SOCIAL_IMAGE_HEIGHT = 630;
export const SOCIAL_IMAGE_ALT =
  'Exploit Grid: a live-fire hacking arena. Your own Debian box with root, real players, no flags.';

/** The public mailboxes the site names (legal texts, the security policy, contact blocks). */
export const PRIVACY_EMAIL = 'privacy@exploitgrid.io';
export const LEGAL_EMAIL = 'legal@exploitgrid.io';
export const SECURITY_EMAIL = 'security@exploitgrid.io';
export const CAREERS_EMAIL = 'careers@exploitgrid.io';
export const CONTACT_EMAIL = 'contact@exploitgrid.io';

/** The spec's 'isn't routed' is a developer's word: players read that the page does not exist (docs/portal.md). */
export const NOT_FOUND_TEXT = "Dead end. The page you're looking for doesn't exist.";
export const NOT_FOUND_TITLE = 'Page Not Found';
export const NOT_FOUND_HOME_LINK = 'Back to base';

/** Toast defaults (core-app section 9). */
export const TOAST_MAX = 20;
export const TOAST_DEFAULT_MS = 4000;
export const TOAST_SUCCESS_MS = 2000;

export const HELP_MENU_LABEL = 'Help and links';
export interface HelpMenuGroup {
  title: string;
  links: readonly { label: string; to: string }[];
}

export const helpMenuGroups: readonly HelpMenuGroup[] = [
  {
    title: 'Company',
    links: [
      { label: 'Careers', to: '/careers' },
      { label: 'Contact', to: '/contact' },
      { label: 'Pricing', to: '/pricing' },
      { label: 'How to Play', to: '/how-to-play' },
    ],
  },
  {
    title: 'Legal',
    links: [
      { label: 'Privacy Policy', to: '/privacy-policy' },
      { label: 'Terms of Service', to: '/terms-of-service' },
    ],
  },
  {
    title: 'Security',
    links: [
      { label: 'Security Policy', to: '/security-policy' },
      { label: 'Report a Vulnerability', to: '/security' },
      { label: 'Hall of Fame', to: '/security/hall-of-fame' },
    ],
  },
];
