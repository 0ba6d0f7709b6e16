import { createHmac, hkdfSync } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { clientKey, mailboxKey, type Throttle } from '../auth/throttle.ts';
import {
  HALL_OF_FAME_RECENT_FINDINGS,
  UNDISCLOSED_FINDING_TITLE,
  type HallOfFame,
  type HallOfFameResearcher,
  type PublicReportStatus,
  type VulnerabilityReport,
  type VulnerabilitySeverity,
} from '../contracts/index.ts';
import type { Orm } from '../db/orm.ts';
import { Sql, uniqueViolation } from '../db/sql.ts';
import type { Logger } from '../logger.ts';
import type { Mailer } from '../mail/mailer.ts';
import { reportAcknowledgementMail, staffReportMail } from './mails.ts';
import { newTrackingId } from './tracking.ts';

export interface VulnerabilityReportsOptions {
  orm: Orm;
  mailer: Mailer;
  throttle: Throttle;
  /** SECURITY_EMAIL: where reports are mailed. */
  securityEmail: string;
  publicUrl: string;
  /** The server secret: researchers' ids in the hall of fame are keyed with a key derived from it. */
  serverSecret: string;
  logger: Logger;
}

/**
 * Vulnerability reports from the public form (docs/security-disclosure.md): stored first, so a mail server
 * that is down loses nothing, then mailed to the security mailbox, and acknowledged to a reporter who gave an
 * address. And the hall of fame, built from the reports staff accepted.
 */
export class VulnerabilityReports {
  readonly #o: VulnerabilityReportsOptions;
  readonly #log: Logger;
  readonly #researcherKey: Buffer;

  constructor(options: VulnerabilityReportsOptions) {
    this.#o = options;
    this.#log = options.logger.child({ component: 'security-reports' });
    this.#researcherKey = Buffer.from(
      hkdfSync('sha256', options.serverSecret, 'exploit-grid', 'hall-of-fame-researcher', 32),
    );
  }

  /**
   * Stores a checked report and answers its tracking id. 429 past the sender's throttle, and then nothing is
   * stored. The sender's address is counted, never stored with the report (an anonymous report stays so).
   */
  async submit(report: VulnerabilityReport, ip: string): Promise<{ trackingId: string }> {
    await this.#o.throttle.consume(['securityReportIp', clientKey(ip)]);
    const sql = new Sql(this.#o.orm.em.fork() as EntityManager);
    const trackingId = await this.#insert(sql, report);
    this.#log.info(
      { trackingId, severity: report.severity, category: report.category, anonymous: report.isAnonymous },
      'Stored a vulnerability report',
    );
    await this.#deliver(sql, trackingId, report);
    return { trackingId };
  }

  async #insert(sql: Sql, report: VulnerabilityReport): Promise<string> {
    const r = report.reporter;
    for (;;) {
      const trackingId = newTrackingId();
      try {
        await sql.run(
          `insert into vulnerability_reports (
             tracking_id, is_anonymous, reporter_name, reporter_email, reporter_handle, reporter_website,
             reporter_twitter, reporter_linkedin, referral_source, title, description, reported_severity, category,
             affected_url, affected_version, reproduction_steps, proof_of_concept, impact_assessment, suggested_fix)
           values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            trackingId,
            report.isAnonymous,
            r?.name ?? null,
            r?.email ?? null,
            r?.handle ?? null,
            r?.website ?? null,
            r?.twitter ?? null,
            r?.linkedIn ?? null,
            r?.referralSource ?? null,
            report.title,
            report.description,
            report.severity,
            report.category,
            report.affectedUrl ?? null,
            report.affectedVersion ?? null,
            report.reproductionSteps,
            report.proofOfConcept ?? null,
            report.impactAssessment,
            report.suggestedFix ?? null,
          ],
        );
        return trackingId;
      } catch (err) {
        // The same 80 random bits twice: drawn again.
        if (uniqueViolation(err) !== 'vulnerability_reports_tracking_id_key') throw err;
      }
    }
  }

  /** The mails; a failure is logged and the report stays (staff see it in `reports list`, not mailed). */
  async #deliver(sql: Sql, trackingId: string, report: VulnerabilityReport): Promise<void> {
    const sent = async (column: 'staff_mailed_at' | 'acknowledged_at', send: () => Promise<void>) => {
      try {
        await send();
        await sql.run(`update vulnerability_reports set ${column} = now() where tracking_id = ?`, [
          trackingId,
        ]);
      } catch (err) {
        this.#log.error({ err, trackingId, mail: column }, 'Could not mail a vulnerability report');
      }
    };
    await sent('staff_mailed_at', () =>
      this.#o.mailer.send(staffReportMail(this.#o.securityEmail, trackingId, report)),
    );
    const reporter = report.reporter;
    if (!reporter) return;
    // Anyone can type anyone's address: one address gets a few acknowledgements a day, then none (the report
    // is stored and mailed to staff all the same).
    if (!(await this.#o.throttle.tryConsume('securityAck', mailboxKey(reporter.email)))) {
      this.#log.warn(
        { trackingId },
        'Skipped the acknowledgement of a vulnerability report: address throttled',
      );
      return;
    }
    await sent('acknowledged_at', () =>
      this.#o.mailer.send(reportAcknowledgementMail(reporter.email, trackingId, this.#o.publicUrl)),
    );
  }

  /**
   * Researchers whose reports staff ACCEPTED or FIXED, anonymous reports left out, grouped by their address
   * (whatever its letter case; citext) which is never part of the answer. Most findings first.
   */
  async hallOfFame(): Promise<HallOfFame> {
    const sql = new Sql(this.#o.orm.em.fork() as EntityManager);
    const [rows, stats] = await Promise.all([
      sql.all<{
        id: string;
        reporter_email: string;
        reporter_name: string;
        reporter_handle: string | null;
        title: string;
        public_title: string | null;
        status: PublicReportStatus;
        severity: VulnerabilitySeverity;
        created_at: string | Date;
        n: string;
        total: string;
        first_at: string | Date;
      }>(
        `select * from (
           select id, reporter_email, reporter_name, reporter_handle, title, public_title, status, severity, created_at,
                  row_number() over researcher as n,
                  count(*) over (partition by reporter_email) as total,
                  min(created_at) over (partition by reporter_email) as first_at
             from vulnerability_reports
            where status in ('ACCEPTED', 'FIXED') and not is_anonymous
           window researcher as (partition by reporter_email order by created_at desc, id desc)
         ) ranked
         where n <= ?
         order by total desc, first_at, reporter_email, n`,
        [HALL_OF_FAME_RECENT_FINDINGS],
      ),
      sql.one<{ researchers: string; reports: string; critical: string }>(
        `select count(distinct reporter_email) as researchers, count(*) as reports,
                count(*) filter (where severity = 'CRITICAL' and status = 'FIXED') as critical
           from vulnerability_reports
          where status in ('ACCEPTED', 'FIXED') and not is_anonymous`,
      ),
    ]);
    const researchers: HallOfFameResearcher[] = [];
    const byEmail = new Map<string, HallOfFameResearcher>();
    for (const row of rows) {
      const email = row.reporter_email.toLowerCase();
      let researcher = byEmail.get(email);
      if (!researcher) {
        // The newest finding comes first: its name and handle are the researcher's latest.
        researcher = {
          id: createHmac('sha256', this.#researcherKey).update(email).digest('base64url').slice(0, 22),
          name: row.reporter_name,
          avatar: null,
          handle: row.reporter_handle,
          totalReports: Number(row.total),
          firstSubmissionDate: iso(row.first_at),
          recentVulnerabilities: [],
        };
        byEmail.set(email, researcher);
        researchers.push(researcher);
      }
      researcher.recentVulnerabilities.push({
        id: row.id,
        title: publicTitle(row),
        submittedAt: iso(row.created_at),
        status: row.status,
        // An open finding's severity would tell attackers what to look for, and for how long it has waited.
        severity: row.status === 'FIXED' ? row.severity : null,
      });
    }
    return {
      researchers,
      stats: {
        totalResearchers: Number(stats?.researchers ?? 0),
        totalReports: Number(stats?.reports ?? 0),
        criticalFindingsCount: Number(stats?.critical ?? 0),
      },
    };
  }
}

/** Timestamps come from the ORM's connection as text. */
const iso = (value: string | Date) => new Date(value).toISOString();

/**
 * What the hall of fame shows of a finding's title: nothing until it is FIXED (a title can say how to attack
 * what is still open), then the public title staff set, else the reporter's own.
 */
export function publicTitle(report: { status: string; title: string; public_title: string | null }): string {
  if (report.status !== 'FIXED') return UNDISCLOSED_FINDING_TITLE;
  return report.public_title ?? report.title;
}
