import {
  CREDITS_PER_USD,
  LEGAL_REVISION,
  MINIMUM_AGE,
  PURCHASE_MAX_USD,
  PURCHASE_MIN_USD,
  TIERS,
  TIER_PERKS,
  type Tier,
} from '@exploit-grid/api/contracts/constants';
import { supportLevels, tierNames } from '../plans.ts';
import { LEGAL_EMAIL } from '../site.ts';
import { list, paragraph, section, type LegalDocument } from './document.ts';

/** One tier of the tier table (commerce-and-content section 6) as a sentence, from the table the game charges by. */
function tierTerms(tier: Tier): string {
  const perks = TIER_PERKS[tier];
  const name = tier === 'ELITE' ? `${tierNames[tier]} (ELITE)` : tier;
  const slots =
    perks.snapshotSlots === 0
      ? 'no snapshot slots'
      : `${perks.snapshotSlots} snapshot slot${perks.snapshotSlots === 1 ? '' : 's'}`;
  return (
    [
      `${name}: box time ${perks.machineHourCost} credits an hour`,
      `an attack ${perks.attackCost} credit${perks.attackCost === 1 ? '' : 's'}`,
      slots,
      perks.canHavePersistentIp ? 'a persistent IP address' : 'no persistent IP address',
      `${supportLevels[perks.supportLevel].toLowerCase()} support`,
      perks.dailyBoxLimited
        ? 'box time limited to a daily allowance shown in the game'
        : 'no daily limit on box time',
    ].join(', ') + '.'
  );
}

/**
 * The Terms of Service (/terms-of-service, terms-and-conditions.pdf): the game's rules of conduct, credits and
 * tiers, and the refund terms of commerce-and-content section 9, every number as the spec gives it.
 */
export const termsOfService: LegalDocument = {
  title: 'Terms of Service',
  description:
    'The rules of Exploit Grid: who may play, what you may attack and when, credits, Gift and tiers, payments and refunds, and what happens when the rules are broken.',
  fileName: 'terms-and-conditions.pdf',
  revised: LEGAL_REVISION,
  intro: [
    'These terms are the agreement between you and Exploit Grid ("we", "us") for the use of the Exploit Grid website and game. Exploit Grid is a live-fire hacking arena: every player gets a Debian machine (a box) with root access over OpenVPN, defends it, and attacks the boxes of other players in matched attack windows. Because the game is real hacking on real machines, its rules of conduct matter more than in most games: please read section 5.',
    'By creating an account you accept these terms and our [Privacy Policy](/privacy-policy). If you do not accept them, do not use Exploit Grid.',
  ],
  sections: [
    section(
      '1. Who may play',
      list(
        `You must be ${MINIMUM_AGE} or older. Everyone who signs up confirms it.`,
        'If you are under 18 (or under the age of majority where you live), you may play only with the permission of a parent or guardian, who accepts these terms for you, and you may buy credits only with their permission.',
        'You may not play if we have closed an account of yours for breaking these terms, or if the law where you live forbids you to.',
      ),
    ),
    section(
      '2. Your account',
      list(
        'You sign up with an email address and a password, or with Google, GitHub or LinkedIn. Give us an address you can read: we send links there that you need.',
        'One person, one account. An account is yours alone: do not share it, sell it or let others play on it.',
        "Keep your password, your VPN configuration and your box's credentials to yourself. You are responsible for what is done with your account and your box. Tell us at once if you believe someone else has used them.",
        'Your handle is public. Do not pick one that impersonates someone, or that is offensive.',
      ),
    ),
    section(
      '3. The game',
      list(
        'You get a box (a Debian machine) with root access, reachable over our VPN. You may configure, harden and use it as you like within these terms. The services the game installs on it must stay up during attacks: a box that goes down or stops its services during a defence forfeits.',
        'Attacks happen only between players who agreed to them: a match you and your opponent both engaged, or a challenge the defender accepted. Each attack opens an attack window: only during it can the attacker reach the target box.',
        'There are no flags. Our referee watches the target box and decides the outcome: a user shell is a foothold, a root shell is owned. Its decision is final, unless it was caused by a fault of ours that you report to us.',
        'Results move MMR and rank on the leaderboard. We may adjust or void results, MMR and ranks that came from a breach of these terms or from a fault of ours.',
        "Boxes are not backups. A reset or deletion wipes a box; snapshots, where your tier has them, are the only copies we keep. Do not store on a box anything you cannot afford to lose, or anyone's personal data.",
        'While an attack runs, the platform records the commands the attacker runs on the target box; both players see this attack log in their history.',
      ),
    ),
    section(
      '4. Credits, Gift and tiers',
      list(
        `Credits pay for box time and attacks. You buy them pay-as-you-go: 1 USD buys ${CREDITS_PER_USD} credits, from ${PURCHASE_MIN_USD} to ${PURCHASE_MAX_USD} USD a purchase. Balances are shown to 2 decimals.`,
        'Free credits, shown as Gift, come with a new account and from gift tokens. A gift token can be redeemed once, may expire, and has no value outside the game.',
        "Every charge spends your Gift first, then your paid credits. Box time is charged for every started minute while your box runs, at your tier's hourly rate, with a minimum charge each time it is powered on, shown in the game; an attack is charged when it starts, and given back if it cannot start. When your credits run out, your box stops. Balances never go negative.",
        'Credits and Gift are a licence to use the game, not money: they cannot be paid out, exchanged for money, transferred to another account or sold. Except as section 7 says, credits are not refundable.',
        'Your tier sets what box time and attacks cost and what else you get. Buying credits of a tier raises your tier to it if it is higher; a purchase never lowers it. Today only BASIC can be bought; the other tiers are coming soon.',
      ),
      paragraph('The tiers:'),
      list(...TIERS.map(tierTerms)),
      paragraph(
        'We may change prices, costs and tiers for the future. Credits you already hold keep their amount, and we announce changes in the game before they take effect.',
      ),
    ),
    section(
      '5. Rules of conduct',
      paragraph(
        "Exploit Grid is a place to attack and defend, within a frame that keeps everyone safe and the game fair. Inside that frame, anything the game allows is fair play: exploit the target's services, escalate to root, harden your own box however you like. Outside it:",
      ),
      list(
        "Attack only the box you are matched with: the target of a match you engaged or of a challenge that was accepted. Never any other player's box.",
        'Attack only within the matched attack window. Before it opens and after it closes, leave the target alone, even if you could still reach it.',
        'Never attack the platform itself: our website, API, VPN servers, referee, the hosts that run the boxes, or the network between them. If you find a weakness in them, report it at [/security](/security) instead; our [security policy](/security-policy) protects you when you do so in good faith.',
        "Never attack other players' own computers or networks: their VPN clients, their home or work networks, their accounts elsewhere. Only their boxes, and only as above.",
        'No denial of service against the shared arena: do not flood boxes, VPN servers or the network, and do not use your box or your VPN connection to degrade the game for others.',
        'No second accounts to farm MMR: do not play against yourself, trade wins, or arrange results with other players.',
        'Use your box and our VPN only for the game: not to attack, scan or send anything to systems outside the arena, not to host or pass on unlawful content, and not for cryptocurrency mining.',
        'Do not cheat the referee from outside the game, for example by exploiting the platform or colluding, and do not automate play in ways the game does not offer.',
        "In chat and everywhere else: no harassment, threats, hate, spam, or sharing other people's personal data.",
      ),
      paragraph(
        "What you learn here is for lawful use. Attacking a system without its owner's permission is a crime in most countries, and these terms give you permission to attack nothing but the box you are matched with, during its window.",
      ),
    ),
    section(
      '6. Payments',
      list(
        'Payments are taken by our payment provider, Stripe or Paddle, in US dollars. Their terms apply to the payment itself; Paddle acts as the reseller where it takes the payment. Taxes may be added at checkout.',
        'Credits are added to your account when the provider confirms the payment to us.',
        'If a payment is refunded or charged back, we take back the credits it bought, in proportion to the money returned, from your paid credits (never below zero).',
      ),
    ),
    section(
      '7. Refunds',
      paragraph(
        'Credits are not refundable once bought, except in these cases. We refund to the payment method you paid with, through the payment provider.',
      ),
      list(
        'Standard requests: a refund must be requested within 30 days of the purchase, unless a case below gives a different period.',
        'Credit purchases: within 30 days of a purchase, you can have it refunded if you have used less than 25% of the credits it bought. Only the unused part is refunded, and those credits are taken back.',
        'Billing errors (a double charge, a wrong amount): report them within 60 days of the charge, and we refund what was charged in error.',
        'Security breaches: if credits were taken from your account through a breach of our security, claim within 7 days of noticing it, and we restore the credits or refund them.',
        'Technical downtime: if the game is unavailable to you for over 48 hours because of a fault on our side, you can ask for a refund of the unused credits of your purchases, or for compensation in credits.',
        'Credits not delivered: if the credits of a successful payment are not in your account within 24 hours, you can ask for a full refund of that purchase.',
        'Subscriptions: where a tier is sold as a subscription, you can cancel it within its initial cancellation period of 30 days from its start and get a refund for that first period under the credit purchase rule above; later periods can be cancelled before they renew.',
        'Gift (free credits) is never refunded or paid out.',
      ),
      paragraph(
        `To ask for a refund, use the [contact form](/contact) or write to [${LEGAL_EMAIL}](mailto:${LEGAL_EMAIL}) from the address of your account, naming the purchase and the reason. We review each request within 5-7 business days, and an accepted refund takes 5-10 business days to reach you, depending on your payment provider and bank. Nothing in this section takes away the rights the consumer law of your country gives you.`,
      ),
    ),
    section(
      '8. Your content',
      paragraph(
        'What you write in chat and send us stays yours. You allow us to store it, show it to the players it was meant for, and use it to run and moderate the game. Do not post what you have no right to post. We may remove content that breaks these terms.',
      ),
    ),
    section(
      '9. Security research',
      paragraph(
        'The platform is not a target of the game. If you believe you found a vulnerability in it, follow our [security policy](/security-policy) and report it at [/security](/security). Research done in good faith under that policy is not a breach of these terms.',
      ),
    ),
    section(
      '10. Suspension and closing an account',
      list(
        'If you break these terms, we may void results, stop your box, revoke your VPN access, suspend your account or close it, depending on how serious the breach is. A banned account can still sign in and read its data, and do nothing else.',
        'Paid credits of an account we close for a serious breach (section 5) are not refunded, unless the law requires otherwise.',
        `You may stop playing and ask us to delete your account at any time (see the [Privacy Policy](/privacy-policy)). Unused paid credits are refunded only under section 7.`,
      ),
    ),
    section(
      '11. Availability and changes',
      paragraph(
        'We work to keep the game running, but we do not promise that it is always available or free of faults. We may change, add or remove features. If we ever shut Exploit Grid down, we tell you at least 30 days before; the rule of section 7 for technical downtime then applies to the credits you hold.',
      ),
    ),
    section(
      '12. Our liability',
      list(
        'Exploit Grid is provided as it is. As far as the law allows, we give no warranties beyond those in these terms.',
        'As far as the law allows, we are not liable for indirect or consequential losses, or for loss of data on your box, and our total liability to you is limited to what you paid us in the 12 months before the claim.',
        'Nothing in these terms limits liability that the law does not allow to be limited, such as for death or personal injury caused by negligence, or for fraud.',
      ),
    ),
    section(
      '13. Changes to these terms',
      paragraph(
        'When we change these terms, we publish the new text here with a new last-updated date, and we tell you by email or in the game at least 30 days before a material change takes effect. If you keep playing after that, you accept the new terms; if you do not accept them, you may close your account. The revision you accepted at sign-up is recorded with your account.',
      ),
    ),
    section(
      '14. Law and disputes',
      paragraph(
        'These terms are governed by the law of the country where Exploit Grid is established, without regard to its conflict-of-law rules. If you are a consumer, you keep the protection of the mandatory law of the country where you live, and you may bring a claim in its courts. Before going to court, please write to us: most problems are solved faster that way.',
      ),
    ),
  ],
  contact: section(
    'Contact',
    paragraph(
      `Questions about these terms, refunds or your account: use the [contact form](/contact), or write to [${LEGAL_EMAIL}](mailto:${LEGAL_EMAIL}).`,
    ),
  ),
};
