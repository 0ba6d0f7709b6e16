import type { AttackOutcome } from '@exploit-grid/api/contracts';
import {
  LOSER_DEFAULT_TEXT,
  LOSER_TEXTS,
  OUTCOME_LABELS,
  OUTCOME_NAMES,
  ROLE_ATTACK,
  ROLE_DEFENSE,
  WINNER_DEFAULT_TEXT,
  WINNER_TEXTS,
} from '../../strings/history.ts';

/**
 * How an attack ended, from one player's side: their role, who won, the words and the colour. Shared by the
 * Kill Chains page, the dashboard and the Grid (whose win/lose overlay shows the same texts).
 */

/** The viewer's side of an attack. */
export type AttackRole = 'attack' | 'defense';
/** What the outcome means for the viewer; 'none' when nobody won (CANCELLED), 'pending' while it runs. */
export type OutcomeResult = 'won' | 'lost' | 'none' | 'pending';
/** MUI palette colours a chip takes. */
export type OutcomeColor = 'success' | 'warning' | 'error' | 'default';

export const roleLabels: Record<AttackRole, string> = { attack: ROLE_ATTACK, defense: ROLE_DEFENSE };

/** The viewer's role: attacker when the attack is theirs, defender otherwise. */
export function roleOf(
  attack: { attacker: { id: string } },
  viewerId: string | null | undefined,
): AttackRole {
  return attack.attacker.id === viewerId ? 'attack' : 'defense';
}

/** The other player of the attack. */
export function opponentOf<P extends { id: string }>(
  attack: { attacker: P; target: P },
  viewerId: string | null | undefined,
): P {
  return roleOf(attack, viewerId) === 'attack' ? attack.target : attack.attacker;
}

/**
 * Which side won (docs/game-rules.md): OWNED and FOOTHOLD the attacker, DEFENDED and TIMEOUT the defender;
 * nobody for CANCELLED, nobody yet while PENDING.
 */
export function winningRole(outcome: AttackOutcome): AttackRole | null {
  switch (outcome) {
    case 'OWNED':
    case 'FOOTHOLD':
      return 'attack';
    case 'DEFENDED':
    case 'TIMEOUT':
      return 'defense';
    case 'CANCELLED':
    case 'PENDING':
      return null;
  }
}

export function outcomeResult(outcome: AttackOutcome, role: AttackRole): OutcomeResult {
  if (outcome === 'PENDING') return 'pending';
  const winner = winningRole(outcome);
  if (winner === null) return 'none';
  return winner === role ? 'won' : 'lost';
}

/**
 * The result text of core-app section 4 for the winner or the loser: 'SYSTEM OWNED', 'FOOTHOLD ESTABLISHED',
 * 'SYSTEM DEFENDED', else 'VICTORY'; 'SYSTEM COMPROMISED', 'SYSTEM BREACHED', 'ATTACK FAILED', else 'DEFEAT'.
 */
export function outcomeHeadline(outcome: AttackOutcome, won: boolean): string {
  return won ? (WINNER_TEXTS[outcome] ?? WINNER_DEFAULT_TEXT) : (LOSER_TEXTS[outcome] ?? LOSER_DEFAULT_TEXT);
}

export type OutcomeView = { label: string; color: OutcomeColor; result: OutcomeResult };

/** The colours of commerce-and-content section 4's outcome table: red, yellow, green, grey. */
const OUTCOME_COLORS: Record<AttackOutcome, OutcomeColor> = {
  OWNED: 'error',
  FOOTHOLD: 'warning',
  DEFENDED: 'success',
  TIMEOUT: 'success',
  PENDING: 'default',
  CANCELLED: 'default',
};

/**
 * The outcome as the viewer's chip shows it, per the outcome table (commerce-and-content section 4): the
 * attacker's or the defender's label ('Owned' / 'Was Owned', 'Timed Out' / 'Survived', 'Lost Nerve' /
 * 'Attacker Bailed', ...) in the outcome's colour, whoever won.
 */
export function outcomeView(outcome: AttackOutcome, role: AttackRole): OutcomeView {
  return {
    label: OUTCOME_LABELS[outcome][role],
    color: OUTCOME_COLORS[outcome],
    result: outcomeResult(outcome, role),
  };
}

/** Badge weight of the dashboard's recent activity (core-app section 2): OWNED high, anything else low. */
export type OutcomeSeverity = 'high' | 'low';
export const outcomeSeverity = (outcome: AttackOutcome): OutcomeSeverity =>
  outcome === 'OWNED' ? 'high' : 'low';

/** The outcome named for a third party ('Owned', 'Timeout', 'In Progress'). */
export const outcomeName = (outcome: AttackOutcome): string => OUTCOME_NAMES[outcome];
