import type { NewNotification } from '../notifications/notifications.ts';

/**
 * Notifications about a player's credits (docs/credits.md, "Alerts"), sent by the box-time loop: stored, and
 * pushed to the player's /grid sockets as `notification` (type GENERIC).
 */
export const CREDIT_ALERTS = {
  lowCredits: {
    title: 'Credits running low',
    body: (credits: number, minutes: number, hourCost: number) =>
      `You have ${credits.toFixed(2)} credits left: about ${minutes} min of box time at your tier's ${hourCost} credits an hour. Buy credits on Plans or redeem a gift to keep your box running.`,
  },
  outOfCredits: {
    title: 'Box stopped: out of credits',
    body: 'Your box was stopped because your credits ran out. Buy credits on Plans or redeem a gift, then power it on again.',
  },
  dailyLimit: {
    title: 'Box stopped: daily limit reached',
    body: "Your box was stopped because today's BASIC box time is used up; it can run again tomorrow (UTC). Higher tiers on Plans have no daily limit; buy credits on Plans or redeem a gift to be ready.",
  },
} as const;

/** The alert for a player whose balance covers less than an hour of box time at `hourCents` an hour. */
export function lowCreditsAlert(userId: string, balanceCents: number, hourCents: number): NewNotification {
  return {
    userId,
    type: 'GENERIC',
    title: CREDIT_ALERTS.lowCredits.title,
    body: CREDIT_ALERTS.lowCredits.body(
      balanceCents / 100,
      Math.floor((balanceCents * 60) / hourCents),
      hourCents / 100,
    ),
  };
}

/** The notice for a box the loop stopped: out of credits, or the BASIC day used up. */
export function boxStoppedAlert(userId: string, reason: 'outOfCredits' | 'dailyLimit'): NewNotification {
  const { title, body } = CREDIT_ALERTS[reason];
  return { userId, type: 'GENERIC', title, body };
}
