import { Migration } from '@mikro-orm/migrations';

const SEVERITIES = `('CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFORMATIONAL')`;
const CATEGORIES = `('Authentication', 'Authorization', 'XSS', 'CSRF', 'SQL', 'RCE', 'LFI', 'RFI', 'SSRF', 'PE', 'ID',
  'DoS', 'Crypto', 'BFL', 'IV', 'CI', 'Other')`;

/**
 * Security disclosure (docs/security-disclosure.md):
 * - `vulnerability_reports`: what researchers sent and what staff decided. An anonymous report holds no
 *   reporter field at all (a constraint, not only the code's habit); no report keeps the sender's address.
 *   `reported_severity` is the reporter's estimate, `severity` the one staff set when accepting (the hall of
 *   fame's); `public_title` what the hall of fame shows of a FIXED finding instead of the reporter's title.
 * - `platform_keys`: the platform's OpenPGP key (security.txt's signature, /pgp-key.asc), the private half
 *   sealed with the server secret; one row per purpose, written once by whichever replica starts first.
 */
export class Migration20261130120000_security extends Migration {
  override up(): void {
    this.addSql(`
      create table vulnerability_reports (
        id uuid primary key default gen_random_uuid(),
        tracking_id text not null unique
          check (tracking_id ~ '^EG-VR-[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$'),
        status text not null default 'NEW' check (status in ('NEW', 'ACCEPTED', 'REJECTED', 'FIXED')),
        is_anonymous boolean not null,
        reporter_name text check (char_length(reporter_name) between 1 and 100),
        reporter_email citext check (char_length(reporter_email) between 3 and 254),
        reporter_handle text check (char_length(reporter_handle) between 1 and 50),
        reporter_website text check (char_length(reporter_website) between 1 and 500),
        reporter_twitter text check (char_length(reporter_twitter) between 1 and 500),
        reporter_linkedin text check (char_length(reporter_linkedin) between 1 and 500),
        referral_source text check (char_length(referral_source) between 1 and 500),
        title text not null check (char_length(title) between 1 and 200),
        description text not null check (char_length(description) between 1 and 10000),
        reported_severity text not null check (reported_severity in ${SEVERITIES}),
        category text not null check (category in ${CATEGORIES}),
        affected_url text check (char_length(affected_url) between 1 and 2000),
        affected_version text check (char_length(affected_version) between 1 and 100),
        reproduction_steps text not null check (char_length(reproduction_steps) between 1 and 10000),
        proof_of_concept text check (char_length(proof_of_concept) between 1 and 10000),
        impact_assessment text not null check (char_length(impact_assessment) between 1 and 5000),
        suggested_fix text check (char_length(suggested_fix) between 1 and 5000),
        severity text check (severity in ${SEVERITIES}),
        public_title text check (char_length(public_title) between 1 and 200),
        rejection_reason text check (char_length(rejection_reason) between 1 and 500),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        accepted_at timestamptz,
        rejected_at timestamptz,
        fixed_at timestamptz,
        staff_mailed_at timestamptz,
        acknowledged_at timestamptz,
        constraint vulnerability_reports_anonymous_check check (
          case when is_anonymous
            then num_nonnulls(reporter_name, reporter_email, reporter_handle, reporter_website, reporter_twitter,
                              reporter_linkedin, referral_source) = 0
            else reporter_name is not null and reporter_email is not null end),
        constraint vulnerability_reports_state_check check (
          case status
            when 'NEW' then severity is null
            when 'ACCEPTED' then severity is not null and accepted_at is not null
            when 'FIXED' then severity is not null and accepted_at is not null and fixed_at is not null
            when 'REJECTED' then rejection_reason is not null and rejected_at is not null
          end)
      );`);
    this.addSql(
      'create index vulnerability_reports_status_idx on vulnerability_reports (status, created_at desc, id);',
    );
    this.addSql(`
      create table platform_keys (
        purpose text primary key check (purpose ~ '^[a-z][a-z0-9-]{0,39}$'),
        fingerprint text not null check (fingerprint ~ '^[0-9a-f]{40,64}$'),
        public_key text not null,
        sealed_private_key text not null,
        created_at timestamptz not null default now()
      );`);
  }

  override down(): void {
    this.addSql('drop table platform_keys;');
    this.addSql('drop table vulnerability_reports;');
  }
}
