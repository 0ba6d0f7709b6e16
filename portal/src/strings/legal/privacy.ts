import { LEGAL_REVISION, MINIMUM_AGE } from '@exploit-grid/api/contracts/constants';
import { PRIVACY_EMAIL } from '../site.ts';
import { list, paragraph, section, type LegalDocument } from './document.ts';

/**
 * The Privacy Policy (/privacy-policy, privacy-policy.pdf). What it says the platform keeps, for how long and
 * how it protects it is what the code does (docs/legal.md lists where each statement comes from).
 */
export const privacyPolicy: LegalDocument = {
  title: 'Privacy Policy',
  description:
    'What Exploit Grid collects when you play, why, who sees it, how long it is kept, how it is protected, and your rights over it.',
  fileName: 'privacy-policy.pdf',
  revised: LEGAL_REVISION,
  intro: [
    'Exploit Grid is a live-fire hacking arena: every player gets a Debian machine (a box) with root access, reached over a VPN, and attacks the boxes of other players in matched attack windows. This policy explains what personal data we collect to run that game, why, who can see it, how long we keep it, how we protect it, and what you can ask of us.',
    'It applies to the Exploit Grid website, the game and its API, and to messages you send us. When we say "we" or "us", we mean the people who run Exploit Grid; "you" means anyone who visits the site or has an account.',
  ],
  sections: [
    section(
      '1. Who is responsible',
      paragraph(
        `Exploit Grid is responsible (the "controller") for the personal data described here. For anything about your data, use the [contact form](/contact) or write to [${PRIVACY_EMAIL}](mailto:${PRIVACY_EMAIL}).`,
      ),
    ),
    section(
      '2. What we collect',
      paragraph('We collect only what the game needs to run, to be fair, and to be paid for:'),
      list(
        'Your account: your email address, your handle, and your password, which we store only as an argon2id hash (we never store or see it in plain text). If you sign in with Google, GitHub or LinkedIn, we receive from that provider your account identifier there, your email addresses there (we keep one verified address) and a name we suggest a handle from; we never receive your password there.',
        `Your consent at sign-up: when you confirmed that you are ${MINIMUM_AGE} or older and accepted the Terms of Service and this policy, and which revision of them you accepted.`,
        'Where you came from: the campaign tags (utm_source, utm_medium, utm_campaign) and the referral code of the link you signed up from, if it had any.',
        'Sessions: for each signed-in session, the IP address and browser (user agent) it was last renewed from, and when.',
        'Your location on the globe: the country of your IP address, looked up in a database on our own servers (no outside service is asked). Other players see you at the centre of that country, never more precisely. We do not keep the address for this.',
        'Your box and VPN: your box (its name, status, loadout of services, snapshots, the public SSH key you may give us, its root password and the token of its agent), and your VPN certificate and its private key. While you are connected, our VPN servers know which VPN address is yours.',
        "The game: your matches, attacks and defences, their outcomes and events, your MMR, rank and statistics, the checks of your box's services during attacks, and, while an attack runs, the commands the attacker runs on the target box (user, working directory and command line), which make up the attack log both players see.",
        'Chat: the messages you send in the global channel and in private chats, who you have blocked, and the notifications we send you.',
        "Credits and payments: every change of your credit balance (purchases, box time, attacks, gifts, refunds), and for each purchase its amount, status and the payment provider's references. Card and bank details go to the payment provider (Stripe or Paddle), never to us.",
        'Activity: when you view the leaderboard, your profile or the plans, and when you cancel a payment.',
        'What you send us: messages through the contact form (with the IP address and browser they came from, to stop abuse), vulnerability reports (which you may send anonymously), and job applications with the resume you upload.',
        'Moderation: if staff ban your account, the reason they give, and a record of every staff action on it (who, when, why), kept for as long as the account exists and, without the link to it, afterwards.',
      ),
      paragraph(
        'We do not use advertising or analytics trackers, and we do not build profiles of you for marketing.',
      ),
    ),
    section(
      '3. Why we use it',
      list(
        'To provide the game you signed up for (performing our contract with you): your account, your box and VPN, matchmaking, attacks and their outcomes, the leaderboard, chat and your credits.',
        'To keep the game fair and the platform safe (our legitimate interest, and yours as a player): throttling abuse, finding second accounts used to farm MMR, investigating attacks outside the rules, and enforcing the Terms of Service.',
        'To take payments and keep accounts of them (our contract with you, and the tax and accounting law we must follow).',
        'To write to you about your account: verification links, password resets, security notices, and answers to your messages. We send no marketing mail.',
        'To meet legal obligations, and to establish or defend legal claims.',
      ),
    ),
    section(
      '4. Who can see it',
      list(
        'Other players see your handle, your country, your MMR, rank and statistics, your messages in the global channel and the private chats you are in, and the attacks you fought with them, including the attack log.',
        'Payment providers (Stripe or Paddle) receive what a payment needs: the amount, your email address and the references that link the payment to your purchase. They handle your card or bank details under their own privacy policies.',
        'Google, GitHub or LinkedIn, if you sign in with them, learn that you signed in to Exploit Grid.',
        'The services we run on (hosting and the delivery of our email) process data for us under contract, and only on our instructions.',
        'Authorities, when the law requires it of us, or when it is needed to protect someone from serious harm.',
      ),
      paragraph('We do not sell your personal data, and we do not share it for advertising.'),
    ),
    section(
      '5. How long we keep it',
      list(
        "Your account, box, VPN certificate, game records, chat messages and credit ledger: as long as your account exists. When an account is deleted, the attacks it fought are deleted with it, from the other player's history too.",
        'Sessions (their IP address and browser): deleted 30 days after the session ended or expired. A session lasts at most 30 days.',
        'Verification, password-reset and sign-in links: deleted 30 days after they expire (they work for 24 hours, 1 hour and 60 seconds).',
        'Counters we use to throttle abuse (keyed by IP address or email address): deleted as soon as they expire, within a day.',
        "Logs: the activity log described above, and our servers' logs, are kept up to 2 years, then deleted.",
        'Purchase records: as long as tax and accounting law requires us to keep them, also after your account is deleted.',
        'Contact messages, vulnerability reports and job applications: as long as we need them to answer and follow up, and at most 2 years after the last exchange. Reports credited in the hall of fame stay there, under the name you chose, until you ask us to remove it.',
      ),
    ),
    section(
      '6. How we protect it',
      list(
        'Passwords are hashed with argon2id, a memory-hard password hash; we cannot read them.',
        "Secrets we must keep to run your box and VPN (your VPN private key, your box's root password and its agent token) are encrypted at rest with AES-256-GCM, under a key derived for that purpose (HKDF with SHA-256) from a server secret kept apart from the database.",
        'Links and codes we mail you, refresh tokens and gift tokens are stored only as SHA-256 hashes, so a copy of the database hands out none of them.',
        'The site and the API are served over HTTPS in production (our server refuses to start in production with an address that is not https://), with HTTP Strict Transport Security. Session cookies are Secure, HttpOnly and SameSite=Strict.',
        'The VPN uses certificates per player (ECDSA P-256), TLS 1.2 or newer for its control channel with tls-crypt, and AES-256-GCM (or AES-128-GCM, or ChaCha20-Poly1305, whichever your client supports) for your traffic.',
        "Boxes are isolated: a box is reachable only from its owner's VPN address, and from an attacker's only during a matched attack window.",
      ),
      paragraph(
        'No system is perfectly secure. If you find a weakness in the platform, please tell us through our [security policy](/security-policy).',
      ),
    ),
    section(
      '7. If there is a breach',
      paragraph(
        'If a breach of security puts your personal data at risk, we tell you by email within 72 hours of becoming aware of it: what happened, what data it concerns, what we are doing about it, and what you can do. Where the law requires it, we also notify the data protection authority within 72 hours.',
      ),
    ),
    section(
      '8. Cookies and storage in your browser',
      list(
        'A refresh cookie (eg_refresh) keeps you signed in for up to 30 days. It is HttpOnly, Secure and sent only to our sign-in API.',
        'Two short-lived cookies protect social sign-in: eg_oauth_state (10 minutes) and eg_social_binding (2 minutes).',
        "Your browser's local storage keeps your current session and a few settings of the game, and its session storage the page to return to after signing in.",
        "The Paddle checkout page loads Paddle's script, which may set cookies of its own for the payment; Stripe's checkout runs on Stripe's site.",
      ),
      paragraph('We set no advertising or analytics cookies, so there is nothing to opt out of.'),
    ),
    section(
      '9. Your rights',
      paragraph(
        'You can ask us to show you the personal data we hold about you, to correct it, to delete it, to give it to you in a portable form, to restrict or object to how we use it, and to withdraw a consent you gave. You can also complain to the data protection authority where you live.',
      ),
      paragraph(
        `Write to [${PRIVACY_EMAIL}](mailto:${PRIVACY_EMAIL}) from the address of your account, or use the [contact form](/contact). We answer within 30 days. To delete your account, write to us the same way: we delete it and the data linked to it within 30 days, except the purchase records we must keep by law.`,
      ),
    ),
    section(
      '10. Children',
      paragraph(
        `Exploit Grid is not for children under ${MINIMUM_AGE}: everyone who signs up confirms that they are ${MINIMUM_AGE} or older. If you are under 18, ask a parent or guardian before you sign up and before you buy credits. If we learn that an account belongs to a child under ${MINIMUM_AGE}, we delete it and its data. If you believe a child under ${MINIMUM_AGE} has an account, tell us at [${PRIVACY_EMAIL}](mailto:${PRIVACY_EMAIL}).`,
      ),
    ),
    section(
      '11. Data outside your country',
      paragraph(
        "Our servers and the providers named above may process your data in countries other than yours, whose laws may protect it less. Where the law requires it, we transfer data only with the safeguards it provides for, such as the European Commission's standard contractual clauses.",
      ),
    ),
    section(
      '12. Changes to this policy',
      paragraph(
        'When we change this policy, we publish the new text here with a new last-updated date. If a change matters to how we use your data, we tell you by email or in the game before it takes effect. The revision you accepted at sign-up is recorded with your account.',
      ),
    ),
  ],
  contact: section(
    'Contact',
    paragraph(
      `Questions about this policy or your data: use the [contact form](/contact), or write to [${PRIVACY_EMAIL}](mailto:${PRIVACY_EMAIL}).`,
    ),
  ),
};
