import { Migration } from '@mikro-orm/migrations';

/**
 * Messages of the public contact form (docs/contact.md). Kept two years (the privacy policy's log retention),
 * then deleted by housekeeping; the sender's address and user agent are kept for abuse handling.
 */
export class Migration20261130110000_contact extends Migration {
  override up(): void {
    this.addSql(`
      create table contact_messages (
        id uuid primary key default gen_random_uuid(),
        created_at timestamptz not null default now(),
        name text not null check (char_length(name) between 1 and 100),
        email text not null check (char_length(email) between 3 and 254),
        subject text not null check (char_length(subject) between 1 and 200),
        message text not null check (char_length(message) between 1 and 5000),
        inquiry_type text not null check (inquiry_type in ('general', 'technical', 'business', 'press')),
        client_ip text not null,
        user_agent text,
        staff_mailed_at timestamptz,
        acknowledged_at timestamptz
      );`);
    this.addSql('create index contact_messages_created_idx on contact_messages (created_at desc, id);');
  }

  override down(): void {
    this.addSql('drop table contact_messages;');
  }
}
