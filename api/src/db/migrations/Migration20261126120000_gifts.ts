import { Migration } from '@mikro-orm/migrations';

/**
 * Gift tokens and credit alerts (docs/credits.md):
 * - `gift_tokens` keeps only what staff listings show next to the hash: a 4-symbol hint and a bounded note;
 * - `credit_ledger_lines_idx`: the rows that begin a line of the player's statement (all but the minutes of box
 *   time after the first of a session), so counting its lines does not read every minute;
 * - `users.low_credit_alert_entry_id`: the ledger row at which the player was last told that their credits
 *   run out within an hour of box time; the next alert waits until a later row shows an hour's worth again.
 */
export class Migration20261126120000_gifts extends Migration {
  override up(): void {
    this.addSql(`
      alter table gift_tokens
        add constraint gift_tokens_hint_check check (hint ~ '^[0-9A-Z]{4}$'),
        add constraint gift_tokens_note_check check (char_length(note) <= 500),
        add constraint gift_tokens_created_by_check check (char_length(created_by) between 1 and 100),
        add constraint gift_tokens_amount_check check (free_credits_cents <= 10000000);`);
    this.addSql('create index gift_tokens_created_idx on gift_tokens (created_at, id);');
    this.addSql(`
      create index credit_ledger_lines_idx on credit_ledger (user_id, id)
       where reason <> 'BOX_TIME' or reference like '%:1';`);
    this.addSql('alter table users add column low_credit_alert_entry_id bigint;');
  }

  override down(): void {
    this.addSql('alter table users drop column low_credit_alert_entry_id;');
    this.addSql('drop index credit_ledger_lines_idx;');
    this.addSql('drop index gift_tokens_created_idx;');
    this.addSql(`
      alter table gift_tokens
        drop constraint gift_tokens_hint_check,
        drop constraint gift_tokens_note_check,
        drop constraint gift_tokens_created_by_check,
        drop constraint gift_tokens_amount_check;`);
  }
}
