import type { AttackOutcome } from '../contracts/attacks.ts';

/** Rated results a pair of players may have in 24 hours; more fights run unrated (docs/game-rules.md). */
export const RATED_RESULTS_PER_PAIR_PER_DAY = 3;
/** 'Too Hard For Me' this soon after the start moves no MMR (a mis-click); later it counts as a loss. */
export const FREE_BAIL_MS = 60_000;
/** How long an engaged match or an accepted challenge lets the attacker start the attack. */
export const CONSENT_MS = 60_000;

/** What an outcome is worth to the attacker (Elo score): a foothold is a partial win. */
export function attackerScore(outcome: AttackOutcome, footholdScore: number): number | null {
  switch (outcome) {
    case 'OWNED':
      return 1;
    case 'FOOTHOLD':
      return footholdScore;
    case 'DEFENDED':
    case 'TIMEOUT':
      return 0;
    default:
      // CANCELLED (and PENDING) move nobody's rating.
      return null;
  }
}

/**
 * Elo: the attacker's expected score against the defender, and the whole-number change of the
 * attacker's rating (the defender moves the opposite way, so MMR is conserved).
 */
export function mmrChange(attackerMmr: number, targetMmr: number, score: number, k: number): number {
  const expected = 1 / (1 + 10 ** ((targetMmr - attackerMmr) / 400));
  return Math.round(k * (score - expected));
}

/** Who won: the attacker with a shell (OWNED, FOOTHOLD), the defender otherwise; nobody for CANCELLED. */
export function winnerOf(outcome: AttackOutcome): 'attacker' | 'target' | null {
  if (outcome === 'OWNED' || outcome === 'FOOTHOLD') return 'attacker';
  if (outcome === 'DEFENDED' || outcome === 'TIMEOUT') return 'target';
  return null;
}
