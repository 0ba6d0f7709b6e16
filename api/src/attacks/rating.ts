import type { AttackOutcome } from '../contracts/attacks.ts';

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
