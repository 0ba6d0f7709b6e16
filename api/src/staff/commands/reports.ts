import {
  VULNERABILITY_REPORT_STATUSES,
  VULNERABILITY_SEVERITIES,
  type VulnerabilityReportStatus,
  type VulnerabilitySeverity,
} from '../../contracts/index.ts';
import { normaliseTrackingId } from '../../security/tracking.ts';
import type { ReportDecision } from '../../security/states.ts';
import {
  fail,
  parseLimit,
  positionals,
  printable,
  stringOption,
  text,
  type StaffCommand,
  type StaffOptionValues,
} from '../cli.ts';
import {
  anonymiseReport,
  answerReport,
  changeReport,
  hallOfFameTitle,
  listReports,
  showReport,
  type ReportHistoryEntry,
  type ReportRow,
} from '../reports.ts';

/** The longest answer staff may mail (a few paragraphs). */
const ANSWER_MAX = 5000;

function trackingIdArg(args: string[]): string {
  const [raw] = positionals(args, ['<trackingId>']);
  return normaliseTrackingId(raw!) ?? fail(`${raw} is not a tracking id (EG-VR-XXXX-XXXX-XXXX-XXXX).`);
}

function severityOption(values: StaffOptionValues, command: string): VulnerabilitySeverity {
  const value = stringOption(values, 'severity')?.trim().toUpperCase();
  if (value === undefined) fail(`${command} needs --severity ${VULNERABILITY_SEVERITIES.join('|')}.`);
  if (!VULNERABILITY_SEVERITIES.includes(value as VulnerabilitySeverity))
    fail(`--severity must be one of ${VULNERABILITY_SEVERITIES.join(', ')}.`);
  return value as VulnerabilitySeverity;
}

function titleOption(values: StaffOptionValues): string | undefined {
  const title = stringOption(values, 'title');
  return title === undefined ? undefined : text('--title', title, 200);
}

/** Text staff write to a reporter: several lines allowed, nothing else a terminal or a mail would act on. */
function messageOption(values: StaffOptionValues): string {
  const raw = stringOption(values, 'message') ?? fail('reports answer needs --message <text>.');
  const message = raw.replace(/\r\n?/g, '\n').trim();
  if (!message) fail('--message must not be empty.');
  if (message.length > ANSWER_MAX) fail(`--message must be at most ${ANSWER_MAX} characters.`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(message))
    fail('--message must not contain control characters.');
  return message;
}

function decisionCommand(
  decision: ReportDecision,
  spec: { usage: string; help: string; options: string[] },
  read: (values: StaffOptionValues) => {
    severity?: VulnerabilitySeverity;
    publicTitle?: string;
    reason?: string;
  },
): StaffCommand {
  return {
    name: `reports ${decision}`,
    usage: spec.usage,
    help: spec.help,
    options: spec.options,
    prepare({ args, values }) {
      const trackingId = trackingIdArg(args);
      const input = { ...read(values), force: values.force === true };
      return async ({ db, actor, out, err }) => {
        const { from, report } = await changeReport(db, { trackingId, decision, actor, ...input });
        if (report.status !== 'REJECTED' && !report.is_anonymous) {
          // The hall of fame thanks an address (which nobody verified) under its latest name: say so when this
          // report would rename a researcher other reports credit already.
          const { rows } = await db.query<{ names: string[] }>(
            `select array_agg(distinct coalesce(reporter_name, '') || coalesce(' (@' || reporter_handle || ')', '')) as names
               from vulnerability_reports
              where reporter_email = $1 and tracking_id <> $2 and not is_anonymous
                and status in ('ACCEPTED', 'FIXED')`,
            [report.reporter_email, trackingId],
          );
          const others = (rows[0]?.names ?? []).filter((name) => name && name !== credit(report));
          if (others.length > 0)
            err(
              `Note: the same address is credited already as ${others.map((n) => printable(n, true)).join(', ')}; the hall of fame shows one researcher under the latest name. Check that they are the same person.`,
            );
        }
        const severity = report.severity ? `, severity ${report.severity}` : '';
        const shown =
          report.status === 'REJECTED'
            ? 'It is not in the hall of fame.'
            : report.is_anonymous
              ? 'It is anonymous: not in the hall of fame.'
              : `The hall of fame shows it as "${printable(hallOfFameTitle(report), true)}", credited to ${printable(credit(report), true)}.`;
        out(`${trackingId}: ${from} -> ${report.status}${severity}. ${shown}`);
      };
    },
  };
}

/** reports list, show, accept, reject, fixed and answer: vulnerability reports (docs/security-disclosure.md). */
export const reportCommands: StaffCommand[] = [
  {
    name: 'reports list',
    usage: `[--status ${VULNERABILITY_REPORT_STATUSES.join('|')}] [--limit <n>]`,
    help: `The latest vulnerability reports (default 50), newest first: tracking id, status, severity (staff's,
else "reported <S>"), category, received, reporter (or anonymous), title, and "NOT MAILED" when
the mail to the security mailbox failed (read those with reports show).`,
    options: ['status', 'limit'],
    prepare({ args, values }) {
      positionals(args, []);
      const status = stringOption(values, 'status')?.trim().toUpperCase();
      if (
        status !== undefined &&
        !VULNERABILITY_REPORT_STATUSES.includes(status as VulnerabilityReportStatus)
      )
        fail(`--status must be one of ${VULNERABILITY_REPORT_STATUSES.join(', ')}.`);
      const query = {
        status: (status ?? null) as VulnerabilityReportStatus | null,
        limit: parseLimit(values.limit, 50),
      };
      return async ({ db, out }) => {
        const reports = await listReports(db, query);
        out(reports.length ? reports.map(listLine).join('\n') : 'No vulnerability reports.');
      };
    },
  },
  {
    name: 'reports show',
    usage: '<trackingId> [--actor <name>]',
    help: 'One report in full, for triage, with what staff did to it so far (the reading is logged).',
    options: ['actor'],
    prepare({ args }) {
      const trackingId = trackingIdArg(args);
      return async ({ db, actor, out }) => {
        const { report, history } = await showReport(db, trackingId, actor);
        out(showText(report, history));
      };
    },
  },
  decisionCommand(
    'accept',
    {
      usage: '<trackingId> --severity <S> [--title <public title>] [--force] [--actor <name>]',
      help: `Accepts a NEW report with staff's --severity (${VULNERABILITY_SEVERITIES.join(', ')}): it joins
the hall of fame (unless anonymous), as 'Undisclosed finding' until it is fixed; --title is
what the hall of fame shows once it is FIXED (else the reporter's own title). Again on an
ACCEPTED report: changes its severity or public title. A REJECTED one needs --force.`,
      options: ['severity', 'title', 'force', 'actor'],
    },
    (values) => ({ severity: severityOption(values, 'reports accept'), publicTitle: titleOption(values) }),
  ),
  decisionCommand(
    'reject',
    {
      usage: '<trackingId> --reason <text> [--force] [--actor <name>]',
      help: `Rejects a NEW report (out of scope, not reproducible, a duplicate); --reason is kept with it.
An ACCEPTED one needs --force (it leaves the hall of fame); a FIXED one cannot be rejected.
The reporter is not mailed: tell them with reports answer.`,
      options: ['reason', 'force', 'actor'],
    },
    (values) => ({
      reason: text(
        '--reason',
        stringOption(values, 'reason') ?? fail('reports reject needs --reason <text>.'),
        500,
      ),
    }),
  ),
  decisionCommand(
    'fixed',
    {
      usage: '<trackingId> [--title <public title>] [--actor <name>]',
      help: `Marks an ACCEPTED report FIXED: the hall of fame shows its title from now on (--title, else
the one set when accepting, else the reporter's). On a FIXED one, --title changes that title.`,
      options: ['title', 'actor'],
    },
    (values) => ({ publicTitle: titleOption(values) }),
  ),
  {
    name: 'reports answer',
    usage: '<trackingId> --message <text> [--actor <name>]',
    help: `Mails --message to the reporter (replies go to SECURITY_EMAIL); logged with the message. Refused
for an anonymous report, which has no address.`,
    options: ['message', 'actor'],
    prepare({ args, values }) {
      const trackingId = trackingIdArg(args);
      const message = messageOption(values);
      return async ({ db, actor, out, config, mailer }) => {
        const { to } = await answerReport(db, {
          trackingId,
          actor,
          message,
          mailer: mailer(),
          securityEmail: config.securityEmail,
        });
        out(`Mailed the answer about ${trackingId} to ${printable(to, true)}.`);
      };
    },
  },
  {
    name: 'reports anonymise',
    usage: '<trackingId> [--actor <name>]',
    help: `Forgets who sent a report, at their request: name, address, handle, links and referral are
deleted, the report stays as anonymous (out of the hall of fame; nobody to answer).`,
    options: ['actor'],
    prepare({ args }) {
      const trackingId = trackingIdArg(args);
      return async ({ db, actor, out }) => {
        const changed = await anonymiseReport(db, { trackingId, actor });
        out(
          changed
            ? `${trackingId} is anonymous now: its reporter's details are deleted, and it left the hall of fame.`
            : `${trackingId} was anonymous already; nothing changed.`,
        );
      };
    },
  },
];

/** Who the hall of fame thanks for a report: the name and handle the reporter gave (for staff to check). */
function credit(r: ReportRow): string {
  return `${r.reporter_name ?? ''}${r.reporter_handle ? ` (@${r.reporter_handle})` : ''}`;
}

function listLine(r: ReportRow): string {
  const reporter = r.is_anonymous ? 'anonymous' : `${r.reporter_name ?? ''} <${r.reporter_email ?? ''}>`;
  const title = r.title.length > 80 ? `${r.title.slice(0, 77)}...` : r.title;
  return [
    r.tracking_id,
    r.status.padEnd(8),
    r.severity ?? `reported ${r.reported_severity}`,
    r.category,
    r.created_at.toISOString(),
    printable(reporter, true),
    printable(title, true),
    ...(r.staff_mailed_at ? [] : ['NOT MAILED']),
  ].join('  ');
}

function showText(r: ReportRow, history: ReportHistoryEntry[]): string {
  const at = (d: Date | null) => d?.toISOString() ?? '-';
  const one = (label: string, value: string | null) =>
    `${label}: ${value === null ? '-' : printable(value, true)}`;
  const block = (label: string, value: string | null) =>
    value === null
      ? []
      : [
          `${label}:`,
          ...printable(value)
            .split('\n')
            .map((l) => `  ${l}`),
        ];
  return [
    one('Tracking ID', r.tracking_id),
    one('Status', r.status),
    one('Severity (staff)', r.severity),
    one('Severity (reported)', r.reported_severity),
    one('Category', r.category),
    one('Received', at(r.created_at)),
    one('Mailed to the security mailbox', at(r.staff_mailed_at)),
    one('Acknowledged to the reporter', r.is_anonymous ? 'no (anonymous)' : at(r.acknowledged_at)),
    ...(r.is_anonymous
      ? ['Reporter: anonymous']
      : [
          one('Reporter', r.reporter_name),
          one('Email', r.reporter_email),
          one('Handle', r.reporter_handle),
          one('Website', r.reporter_website),
          one('Twitter', r.reporter_twitter),
          one('LinkedIn', r.reporter_linkedin),
          one('Referral source', r.referral_source),
        ]),
    one('Title', r.title),
    one('Hall of fame title', r.status === 'ACCEPTED' || r.status === 'FIXED' ? hallOfFameTitle(r) : null),
    ...(r.public_title ? [one('Public title', r.public_title)] : []),
    one('Affected URL', r.affected_url),
    one('Affected version', r.affected_version),
    ...block('Description', r.description),
    ...block('Steps to reproduce', r.reproduction_steps),
    ...block('Proof of concept', r.proof_of_concept),
    ...block('Impact assessment', r.impact_assessment),
    ...block('Suggested fix', r.suggested_fix),
    ...(r.rejection_reason ? [one('Rejected because', r.rejection_reason)] : []),
    'History:',
    ...(history.length
      ? history.map(
          (h) =>
            `  ${h.at.toISOString()}  ${h.action}  by ${printable(h.actor, true)}${h.reason ? `: ${printable(h.reason, true)}` : ''}${historyDetails(h)}`,
        )
      : ['  (none)']),
  ].join('\n');
}

function historyDetails(h: ReportHistoryEntry): string {
  const d = h.details;
  const parts = [
    typeof d.from === 'string' && typeof d.to === 'string' ? `${d.from} -> ${d.to}` : '',
    typeof d.severity === 'string' ? `severity ${d.severity}` : '',
    typeof d.publicTitle === 'string' ? `public title "${printable(d.publicTitle, true)}"` : '',
    d.forced === true ? 'forced' : '',
    typeof d.message === 'string' ? `message: ${printable(d.message, true)}` : '',
  ].filter(Boolean);
  return parts.length ? ` (${parts.join(', ')})` : '';
}
