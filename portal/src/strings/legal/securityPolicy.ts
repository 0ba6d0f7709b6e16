import { LEGAL_REVISION } from '@exploit-grid/api/contracts/constants';
import { SECURITY_EMAIL } from '../site.ts';
import { list, paragraph, section, type LegalDocument } from './document.ts';

/**
 * The response targets of commerce-and-content section 9, as the policy states them (the /security page's
 * cards say the same).
 */
export const responseTargets = [
  { severity: 'Critical', response: '4-8 hours', fix: '24-72 hours' },
  { severity: 'High', response: '24 hours', fix: '3-7 days' },
  { severity: 'Medium', response: '48 hours', fix: '1-2 weeks' },
  { severity: 'Low', response: '72 hours', fix: '2-4 weeks' },
] as const;
export const ACKNOWLEDGEMENT_TARGET = '24-48 hours';
export const INCIDENT_NOTICE_TARGET = '72 hours';

/**
 * The Security Policy (/security-policy, security-policy.pdf): what may be tested, the safe harbour, how to
 * report, and what we answer and when. The protections it names are the ones the code applies (docs/legal.md).
 */
export const securityPolicy: LegalDocument = {
  title: 'Security Policy',
  description:
    'How to report a vulnerability in Exploit Grid: what is in scope, the safe harbour for good-faith research, our response times, and the hall of fame.',
  fileName: 'security-policy.pdf',
  revised: LEGAL_REVISION,
  intro: [
    'Exploit Grid is a hacking arena, so its players are exactly the people most likely to find a flaw in it. We want to hear about every one. This policy says what you may test, how to report what you find, how we protect you when you do so in good faith, and what we answer and when.',
    'Attacking the boxes of the game is the game, and its rules are in the [Terms of Service](/terms-of-service). This policy is about the platform that runs the game.',
  ],
  sections: [
    section(
      '1. Scope',
      paragraph('In scope: the platform itself, and anything that breaks the rules the game relies on.'),
      list(
        'The website and the portal, and the API behind them (sign-up, sign-in, sessions, tokens, payments, credits, gifts, chat, the leaderboard), including their realtime connections.',
        'The VPN: its servers, the certificates and configurations we issue, and the rules that decide who can reach which box.',
        "Box isolation: reaching a box outside a matched attack window, reaching another player's box you were not matched with, escaping a box into the host or the cluster that runs it, or reaching the platform's internal services from a box.",
        'The referee: forging, hiding or changing the outcome of an attack, or the attack log, by anything other than playing the game.',
        'Credits and payments: getting credits, Gift or a tier without paying for them, spending credits twice, or charging another player.',
        "Other players' data: reading or changing another player's account, messages, box credentials or VPN keys.",
      ),
      paragraph('Out of scope:'),
      list(
        'The vulnerable services installed on the boxes of the game: breaking into them is the game, not a finding (but reaching them outside the rules above is).',
        'Denial of service, load or stress testing of any kind, and spam.',
        'Social engineering or phishing of our staff or players, and physical attacks.',
        'The systems of third parties we use (Stripe, Paddle, Google, GitHub, LinkedIn, our hosting); report to them.',
        'Reports from automated scanners without a demonstrated impact, missing best-practice headers or settings without a way to exploit them, self-XSS, clickjacking of pages with no action to trick, and the disclosure of software versions alone.',
        'Anything that needs a compromised device, a rooted phone or an out-of-date browser.',
      ),
    ),
    section(
      '2. Safe harbour',
      paragraph(
        'If you research and report in good faith under this policy, we consider your research authorised: we will not take legal action against you or ask anyone else to, and we will not ban or penalise your account for it. If someone else takes action against you for research done under this policy, we will make it known that it was authorised.',
      ),
      paragraph('Good faith means that you:'),
      list(
        'test only with your own accounts, or with accounts whose owners agreed to it;',
        "access, change or keep no more data than you need to show the problem, and never other players' personal data beyond that: if you reach some, stop, tell us, and delete your copy;",
        'do nothing that degrades the game for others: no denial of service, no destruction of data, no use of a flaw beyond what proves it;',
        'report what you find to us promptly, and keep it to yourself until it is fixed, or until 90 days after your report if we have not fixed it by then and have not agreed a later date with you;',
        'do not ask for payment in exchange for not disclosing a finding.',
      ),
    ),
    section(
      '3. How to report',
      list(
        'Use the Report Vulnerability form on our [security page](/security). You can report anonymously there; if you leave a name and an address, we keep you informed and can credit you.',
        `Or write to [${SECURITY_EMAIL}](mailto:${SECURITY_EMAIL}). To encrypt your message, use our OpenPGP key at [/pgp-key.asc](/pgp-key.asc).`,
        'Our contact details are also in [/.well-known/security.txt](/.well-known/security.txt) (RFC 9116), signed with the same key.',
      ),
      paragraph(
        'A good report says what is affected (the address or the part of the game), what an attacker could do with it, and how to reproduce it step by step, with a proof of concept if you have one. Tell us how severe you think it is; we assess it ourselves too.',
      ),
    ),
    section(
      '4. What we answer and when',
      paragraph(
        `We acknowledge every report within ${ACKNOWLEDGEMENT_TARGET}. After that, by the severity we assess, we aim to respond with our analysis and to fix the problem within these times:`,
      ),
      list(
        ...responseTargets.map(
          (target) => `${target.severity}: response within ${target.response}, fix within ${target.fix}.`,
        ),
      ),
      paragraph(
        'Informational reports are answered as time allows. We tell you when the problem is fixed, and we may ask you to check the fix.',
      ),
    ),
    section(
      '5. Recognition',
      paragraph(
        'Researchers whose reports we accept are credited in our [hall of fame](/security/hall-of-fame), under the name or handle they chose, with the findings we accepted. Anonymous reports are not credited, and you can ask us to remove your entry at any time. We do not pay bounties at present.',
      ),
    ),
    section(
      '6. How we protect the platform',
      list(
        'Passwords are hashed with argon2id.',
        'Secrets kept to run boxes and the VPN (VPN private keys, box root passwords and agent tokens) are encrypted at rest with AES-256-GCM, under keys derived per purpose with HKDF (SHA-256) from a server secret.',
        'Links and codes we mail, refresh tokens and gift tokens are stored only as SHA-256 hashes.',
        'In production the site and the API are served only over HTTPS, with HTTP Strict Transport Security; session cookies are Secure, HttpOnly and SameSite=Strict; every JSON call of the API is checked against a strict schema, and pages run under a Content Security Policy.',
        'The VPN authenticates every player with a certificate of their own (ECDSA P-256), runs its control channel on TLS 1.2 or newer with tls-crypt, and encrypts traffic with AES-256-GCM, AES-128-GCM or ChaCha20-Poly1305.',
        'The service that faces the internet runs without root privileges. A box can reach nothing of the platform but the endpoint its agent reports to, and is reachable only from its owner and, during a matched attack window, from its attacker.',
      ),
    ),
    section(
      '7. Incidents',
      paragraph(
        `If a security incident puts players' data at risk, we notify the affected players within ${INCIDENT_NOTICE_TARGET} of becoming aware of it, and say what happened, what it affects and what they should do. Our [Privacy Policy](/privacy-policy) says more.`,
      ),
    ),
  ],
  contact: section(
    'Contact',
    paragraph(
      `Report at [/security](/security) or write to [${SECURITY_EMAIL}](mailto:${SECURITY_EMAIL}) (OpenPGP key: [/pgp-key.asc](/pgp-key.asc)). For anything else, use the [contact form](/contact).`,
    ),
  ),
};
