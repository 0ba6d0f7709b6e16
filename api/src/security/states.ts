import type { VulnerabilityReportStatus } from '../contracts/index.ts';

/** What staff do to a report (`reports accept|reject|fixed`). */
export type ReportDecision = 'accept' | 'reject' | 'fixed';

export type ReportTransition = { ok: true; to: VulnerabilityReportStatus } | { ok: false; why: string };

/**
 * The state machine of a report (docs/security-disclosure.md, "States"):
 *
 *   NEW ──accept──▶ ACCEPTED ──fixed──▶ FIXED
 *    └──reject──▶ REJECTED
 *
 * and, only when staff say so (`--force`), ACCEPTED ──reject──▶ REJECTED (withdrawn from the hall of fame) and
 * REJECTED ──accept──▶ ACCEPTED (reconsidered). Accepting an ACCEPTED report again changes its severity or
 * public title; `fixed` on a FIXED report with a public title changes that title. A FIXED finding is never
 * rejected: it was real. `--force` where it is not needed is refused, so it is never typed out of habit.
 */
export function decide(
  decision: ReportDecision,
  from: VulnerabilityReportStatus,
  options: { force: boolean; title: boolean },
): ReportTransition {
  const refuse = (why: string): ReportTransition => ({ ok: false, why });
  const to = (status: VulnerabilityReportStatus, forced: boolean): ReportTransition =>
    forced === options.force
      ? { ok: true, to: status }
      : forced
        ? refuse(FORCE_NEEDED[`${decision}:${from}`] ?? 'needs --force.')
        : refuse(`is ${from}: ${decision} needs no --force here.`);
  switch (decision) {
    case 'accept':
      if (from === 'NEW' || from === 'ACCEPTED') return to('ACCEPTED', false);
      if (from === 'REJECTED') return to('ACCEPTED', true);
      return refuse(
        'is FIXED already: change its public title with reports fixed <trackingId> --title <text>.',
      );
    case 'reject':
      if (from === 'NEW') return to('REJECTED', false);
      if (from === 'ACCEPTED') return to('REJECTED', true);
      if (from === 'REJECTED') return refuse('is REJECTED already.');
      return refuse('is FIXED: a fixed finding was real, it is not rejected.');
    case 'fixed':
      if (from === 'ACCEPTED') return to('FIXED', false);
      if (from === 'FIXED')
        return options.title
          ? to('FIXED', false)
          : refuse('is FIXED already (give --title <text> to change its public title).');
      if (from === 'NEW')
        return refuse('is NEW: accept it first (reports accept <trackingId> --severity <S>).');
      return refuse('is REJECTED: accept it first (reports accept <trackingId> --severity <S> --force).');
  }
}

const FORCE_NEEDED: Record<string, string> = {
  'accept:REJECTED': 'was REJECTED: give --force to accept it after all.',
  'reject:ACCEPTED': 'is ACCEPTED (in the hall of fame): give --force to reject it after all.',
};
