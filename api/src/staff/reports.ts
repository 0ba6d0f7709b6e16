import type pg from 'pg';
import type { VulnerabilityReportStatus, VulnerabilitySeverity } from '../contracts/index.ts';
import type { Mailer } from '../mail/mailer.ts';
import { reportAnswerMail } from '../security/mails.ts';
import { publicTitle } from '../security/reports.ts';
import { decide, type ReportDecision } from '../security/states.ts';
import { StaffError, inTransaction, logStaffAction } from './cli.ts';

type Db = Pick<pg.ClientBase, 'query'>;

/** A report as staff read it (`reports show`): everything it holds. */
export interface ReportRow {
  id: string;
  tracking_id: string;
  status: VulnerabilityReportStatus;
  is_anonymous: boolean;
  reporter_name: string | null;
  reporter_email: string | null;
  reporter_handle: string | null;
  reporter_website: string | null;
  reporter_twitter: string | null;
  reporter_linkedin: string | null;
  referral_source: string | null;
  title: string;
  description: string;
  reported_severity: VulnerabilitySeverity;
  category: string;
  affected_url: string | null;
  affected_version: string | null;
  reproduction_steps: string;
  proof_of_concept: string | null;
  impact_assessment: string;
  suggested_fix: string | null;
  severity: VulnerabilitySeverity | null;
  public_title: string | null;
  rejection_reason: string | null;
  created_at: Date;
  updated_at: Date;
  accepted_at: Date | null;
  rejected_at: Date | null;
  fixed_at: Date | null;
  staff_mailed_at: Date | null;
  acknowledged_at: Date | null;
}

/** What staff did to a report, from `staff_actions` (oldest first). */
export interface ReportHistoryEntry {
  at: Date;
  actor: string;
  action: string;
  reason: string | null;
  details: Record<string, unknown>;
}

/** The staff_actions names of the reports' commands. */
export const REPORT_ACTIONS = {
  read: 'VULN_REPORT_READ',
  accept: 'VULN_REPORT_ACCEPT',
  reject: 'VULN_REPORT_REJECT',
  fixed: 'VULN_REPORT_FIXED',
  answer: 'VULN_REPORT_ANSWER',
  anonymise: 'VULN_REPORT_ANONYMISE',
} as const;

const noReport = (trackingId: string) => new StaffError(`No vulnerability report ${trackingId}.`);

/** The latest reports, newest first (of one status). */
export async function listReports(
  db: Db,
  options: { status: VulnerabilityReportStatus | null; limit: number },
): Promise<ReportRow[]> {
  const { rows } = await db.query<ReportRow>(
    `select * from vulnerability_reports where $1::text is null or status = $1
      order by created_at desc, id limit $2`,
    [options.status, options.limit],
  );
  return rows;
}

/**
 * One report in full, with what staff did to it. Reading a report (a researcher's address, an unfixed bug's
 * details) is logged like an action.
 */
export async function showReport(
  db: Db,
  trackingId: string,
  actor: string,
): Promise<{ report: ReportRow; history: ReportHistoryEntry[] }> {
  return inTransaction(db, async () => {
    const { rows } = await db.query<ReportRow>('select * from vulnerability_reports where tracking_id = $1', [
      trackingId,
    ]);
    const report = rows[0];
    if (!report) throw noReport(trackingId);
    const history = await db.query<ReportHistoryEntry>(
      `select at, actor, action, reason, details from staff_actions
        where target = $1 and action like 'VULN_REPORT_%' and action <> $2 order by at, id`,
      [trackingId, REPORT_ACTIONS.read],
    );
    await logStaffAction(db, { actor, action: REPORT_ACTIONS.read, target: trackingId });
    return { report, history: history.rows };
  });
}

export interface ReportChange {
  trackingId: string;
  decision: ReportDecision;
  actor: string;
  force: boolean;
  /** accept: the severity staff set. */
  severity?: VulnerabilitySeverity;
  /** accept, fixed: the title the hall of fame shows once the finding is FIXED. */
  publicTitle?: string;
  /** reject: why (kept with the report and in the audit log). */
  reason?: string;
}

/**
 * Moves a report along its state machine (security/states.ts) in one transaction with its staff_actions
 * row; a move the machine refuses changes nothing and says why.
 */
export async function changeReport(
  db: Db,
  change: ReportChange,
): Promise<{ from: VulnerabilityReportStatus; report: ReportRow }> {
  return inTransaction(db, async () => {
    const { rows } = await db.query<ReportRow>(
      'select * from vulnerability_reports where tracking_id = $1 for update',
      [change.trackingId],
    );
    const current = rows[0];
    if (!current) throw noReport(change.trackingId);
    const verdict = decide(change.decision, current.status, {
      force: change.force,
      title: change.publicTitle !== undefined,
    });
    if (!verdict.ok) throw new StaffError(`${change.trackingId} ${verdict.why}`);
    const updated = await db.query<ReportRow>(UPDATES[change.decision], [
      change.trackingId,
      ...(change.decision === 'accept'
        ? [change.severity, change.publicTitle ?? null]
        : change.decision === 'reject'
          ? [change.reason]
          : [change.publicTitle ?? null]),
    ]);
    const report = updated.rows[0]!;
    await logStaffAction(db, {
      actor: change.actor,
      action: REPORT_ACTIONS[change.decision],
      target: change.trackingId,
      reason: change.reason ?? null,
      details: {
        from: current.status,
        to: report.status,
        ...(change.force ? { forced: true } : {}),
        ...(change.severity ? { severity: change.severity } : {}),
        ...(change.publicTitle !== undefined ? { publicTitle: change.publicTitle } : {}),
      },
    });
    return { from: current.status, report };
  });
}

const UPDATES: Record<ReportDecision, string> = {
  // A reconsidered report forgets its rejection (kept in staff_actions); a public title given before stays
  // unless a new one is.
  accept: `update vulnerability_reports
              set status = 'ACCEPTED', severity = $2, public_title = coalesce($3, public_title),
                  accepted_at = coalesce(accepted_at, now()), rejection_reason = null, rejected_at = null,
                  updated_at = now()
            where tracking_id = $1 returning *`,
  reject: `update vulnerability_reports
              set status = 'REJECTED', rejection_reason = $2, rejected_at = now(), updated_at = now()
            where tracking_id = $1 returning *`,
  fixed: `update vulnerability_reports
             set status = 'FIXED', public_title = coalesce($2, public_title), fixed_at = coalesce(fixed_at, now()),
                 updated_at = now()
           where tracking_id = $1 returning *`,
};

/**
 * Forgets who sent a report, at their request: the reporter's name, address, handle, links and referral go,
 * and the report stays (with its findings, as anonymous: out of the hall of fame, and with nobody to answer).
 * Logged without what was removed. Answers whether there was anything to remove.
 */
export async function anonymiseReport(
  db: Db,
  input: { trackingId: string; actor: string },
): Promise<boolean> {
  return inTransaction(db, async () => {
    const { rows } = await db.query<ReportRow>(
      'select * from vulnerability_reports where tracking_id = $1 for update',
      [input.trackingId],
    );
    const report = rows[0];
    if (!report) throw noReport(input.trackingId);
    if (report.is_anonymous) return false;
    await db.query(
      `update vulnerability_reports
          set is_anonymous = true, reporter_name = null, reporter_email = null, reporter_handle = null,
              reporter_website = null, reporter_twitter = null, reporter_linkedin = null, referral_source = null,
              updated_at = now()
        where tracking_id = $1`,
      [input.trackingId],
    );
    await logStaffAction(db, {
      actor: input.actor,
      action: REPORT_ACTIONS.anonymise,
      target: input.trackingId,
      details: { status: report.status },
    });
    return true;
  });
}

/** What the hall of fame shows as the report's title (for staff to check before it is published). */
export function hallOfFameTitle(report: ReportRow): string {
  return publicTitle({ status: report.status, title: report.title, public_title: report.public_title });
}

/**
 * Mails staff's `message` to the reporter, logged in the same transaction: a mail that cannot be sent leaves
 * no log row and an error. An anonymous report has nobody to answer.
 */
export async function answerReport(
  db: Db,
  input: { trackingId: string; actor: string; message: string; mailer: Mailer; securityEmail: string },
): Promise<{ to: string }> {
  return inTransaction(db, async () => {
    const { rows } = await db.query<ReportRow>(
      'select * from vulnerability_reports where tracking_id = $1 for update',
      [input.trackingId],
    );
    const report = rows[0];
    if (!report) throw noReport(input.trackingId);
    if (report.is_anonymous || !report.reporter_email)
      throw new StaffError(`${input.trackingId} is anonymous: there is no address to answer.`);
    await logStaffAction(db, {
      actor: input.actor,
      action: REPORT_ACTIONS.answer,
      target: input.trackingId,
      details: { message: input.message, status: report.status },
    });
    try {
      await input.mailer.send(
        reportAnswerMail(report.reporter_email, input.trackingId, input.message, input.securityEmail),
      );
    } catch (err) {
      throw new StaffError(`Could not send the answer (nothing was logged): ${(err as Error).message}`);
    }
    return { to: report.reporter_email };
  });
}
