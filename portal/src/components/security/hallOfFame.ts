import {
  PUBLIC_REPORT_STATUSES,
  VULNERABILITY_SEVERITIES,
  type PublicReportStatus,
  type VulnerabilitySeverity,
} from '@exploit-grid/api/contracts/security-constants';
import type { HallOfFame, HallOfFameFinding, HallOfFameResearcher } from '@exploit-grid/api/contracts';

const isText = (value: unknown): value is string => typeof value === 'string';
const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;

function finding(value: unknown): HallOfFameFinding | null {
  const v = value as Partial<Record<keyof HallOfFameFinding, unknown>> | null;
  if (!v || !isText(v.id) || !isText(v.title) || !isText(v.submittedAt)) return null;
  if (!PUBLIC_REPORT_STATUSES.includes(v.status as PublicReportStatus)) return null;
  if (v.severity !== null && !VULNERABILITY_SEVERITIES.includes(v.severity as VulnerabilitySeverity))
    return null;
  return {
    id: v.id,
    title: v.title,
    submittedAt: v.submittedAt,
    status: v.status as PublicReportStatus,
    severity: v.severity as VulnerabilitySeverity | null,
  };
}

function researcher(value: unknown): HallOfFameResearcher | null {
  const v = value as Partial<Record<keyof HallOfFameResearcher, unknown>> | null;
  if (!v || !isText(v.id) || !isText(v.name) || !isCount(v.totalReports) || !isText(v.firstSubmissionDate))
    return null;
  const findings = Array.isArray(v.recentVulnerabilities) ? v.recentVulnerabilities.map(finding) : [];
  return {
    id: v.id,
    name: v.name,
    // The platform serves no avatars yet, and the page shows none from elsewhere: initials instead.
    avatar: null,
    handle: isText(v.handle) ? v.handle : null,
    totalReports: v.totalReports,
    firstSubmissionDate: v.firstSubmissionDate,
    recentVulnerabilities: findings.filter((f): f is HallOfFameFinding => f !== null),
  };
}

/**
 * `GET /security/hall-of-fame` read without the schemas (the page stays light): what does not have the
 * contract's shape is left out, and an answer that is not one at all throws (the page logs it and shows the
 * empty state).
 */
export const hallOfFameAnswer = {
  parse(data: unknown): HallOfFame {
    const v = data as { researchers?: unknown; stats?: Record<string, unknown> } | null;
    if (!v || !Array.isArray(v.researchers) || !v.stats) throw new Error('Not a hall of fame');
    const count = (key: string) => (isCount(v.stats?.[key]) ? (v.stats[key] as number) : 0);
    return {
      researchers: v.researchers.map(researcher).filter((r): r is HallOfFameResearcher => r !== null),
      stats: {
        totalResearchers: count('totalResearchers'),
        totalReports: count('totalReports'),
        criticalFindingsCount: count('criticalFindingsCount'),
      },
    };
  },
};

/** 'Jan 2026': when a researcher's first finding came. */
export function monthYear(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? ''
    : date.toLocaleDateString('en-US', { month: 'short', year: 'numeric', timeZone: 'UTC' });
}

/** 'Mar 2, 2026': when a finding was reported. */
export function dayMonthYear(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? ''
    : date.toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
}

/** Up to two initials of a name, for the avatar. */
export function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  return (
    words.length > 1 ? `${words[0]![0]}${words.at(-1)![0]}` : (words[0]?.slice(0, 2) ?? '?')
  ).toUpperCase();
}
