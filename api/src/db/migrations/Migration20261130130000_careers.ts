import { Migration } from '@mikro-orm/migrations';

/**
 * Careers (docs/careers.md):
 * - `jobs`: what staff publish with the CLI; open while `closed_at` is null. Every text is bounded here too.
 * - `job_applications`: what a visitor sent, with the staff mail's outcome (`staff_mailed_at`).
 * - `resume_uploads`: the files themselves (bytea: PostgreSQL is the one store every API replica shares),
 *   told apart by content (`kind`); each is attached to one application at most (`application_id` unique,
 *   set once by a conditional update), and one still unattached after `expires_at` is swept.
 */
export class Migration20261130130000_careers extends Migration {
  override up(): void {
    this.addSql(`
      create table jobs (
        id uuid primary key default gen_random_uuid(),
        slug text not null unique
          check (char_length(slug) <= 80 and slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
        title text not null check (char_length(title) between 1 and 120),
        short_description text not null check (char_length(short_description) between 1 and 300),
        description text not null check (char_length(description) between 1 and 20000),
        requirements text not null check (char_length(requirements) between 1 and 20000),
        preferred text check (char_length(preferred) between 1 and 20000),
        category text not null check (category ~ '^[A-Z][A-Z0-9_]{0,39}$'),
        type text not null check (type in ('FULL_TIME', 'PART_TIME', 'CONTRACT', 'INTERNSHIP')),
        level text not null
          check (level in ('ENTRY', 'JUNIOR', 'SENIOR', 'LEAD', 'PRINCIPAL', 'DIRECTOR', 'EXECUTIVE')),
        remote boolean not null default false,
        location text check (char_length(location) between 1 and 120),
        timezone text check (char_length(timezone) between 1 and 64),
        salary_min bigint check (salary_min between 0 and 10000000000),
        salary_max bigint check (salary_max between 0 and 10000000000),
        skills text[] not null default '{}' check (cardinality(skills) <= 30),
        benefits text[] not null default '{}' check (cardinality(benefits) <= 30),
        application_url text check (char_length(application_url) <= 500 and application_url ~ '^https?://'),
        application_email text check (char_length(application_email) <= 254),
        published_at timestamptz not null default now(),
        closed_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check (salary_min is null or salary_max is null or salary_min <= salary_max)
      );`);
    this.addSql('create index jobs_open_idx on jobs (published_at desc, id) where closed_at is null;');
    this.addSql(`
      create table job_applications (
        id uuid primary key default gen_random_uuid(),
        job_id uuid not null references jobs (id),
        first_name text not null check (char_length(first_name) between 1 and 100),
        last_name text not null check (char_length(last_name) between 1 and 100),
        email text not null check (char_length(email) between 3 and 254),
        phone text check (char_length(phone) <= 40),
        location text check (char_length(location) <= 120),
        cover_letter text check (char_length(cover_letter) <= 10000),
        portfolio_url text check (char_length(portfolio_url) <= 500),
        linkedin_url text check (char_length(linkedin_url) <= 500),
        github_url text check (char_length(github_url) <= 500),
        source text check (source in ('website', 'linkedin', 'twitter', 'github', 'referral', 'recruiter',
                                      'job_board', 'other')),
        created_at timestamptz not null default now(),
        staff_mailed_at timestamptz
      );`);
    this.addSql('create index job_applications_job_idx on job_applications (job_id, created_at desc);');
    this.addSql('create index job_applications_created_idx on job_applications (created_at desc, id);');
    this.addSql(`
      create table resume_uploads (
        id uuid primary key default gen_random_uuid(),
        kind text not null check (kind in ('pdf', 'doc', 'docx')),
        size integer not null check (size between 1 and 5242880),
        sha256 bytea not null check (octet_length(sha256) = 32),
        file_name text check (char_length(file_name) <= 200),
        content bytea not null check (octet_length(content) = size),
        application_id uuid unique references job_applications (id) on delete cascade,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null
      );`);
    this.addSql(
      'create index resume_uploads_unattached_idx on resume_uploads (expires_at) where application_id is null;',
    );
  }

  override down(): void {
    this.addSql('drop table resume_uploads;');
    this.addSql('drop table job_applications;');
    this.addSql('drop table jobs;');
  }
}
