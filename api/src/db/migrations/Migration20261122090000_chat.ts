import { Migration } from '@mikro-orm/migrations';

/**
 * The chat (docs/chat.md): the global channel's messages, private chats opened by a request (at most
 * one PENDING or ACTIVE chat per pair of players, whoever asked) and their messages.
 */
export class Migration20261122090000_chat extends Migration {
  override up(): void {
    this.addSql(`
      create table global_chat_messages (
        id uuid primary key default gen_random_uuid(),
        sender_id uuid not null references users (id) on delete cascade,
        content text not null check (char_length(content) between 1 and 2000),
        created_at timestamptz not null default now()
      );`);
    this.addSql(
      'create index global_chat_messages_recent_idx on global_chat_messages (created_at desc, id desc);',
    );
    this.addSql('create index global_chat_messages_sender_idx on global_chat_messages (sender_id);');
    this.addSql(`
      create table chats (
        id uuid primary key default gen_random_uuid(),
        initiator_id uuid not null references users (id) on delete cascade,
        participant_id uuid not null references users (id) on delete cascade,
        status text not null default 'PENDING' check (status in ('PENDING', 'ACTIVE', 'DECLINED')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check (initiator_id <> participant_id)
      );`);
    this.addSql(`
      create unique index chats_open_pair on chats
        (least(initiator_id, participant_id), greatest(initiator_id, participant_id))
        where status in ('PENDING', 'ACTIVE');`);
    this.addSql('create index chats_initiator_idx on chats (initiator_id, status);');
    this.addSql('create index chats_participant_idx on chats (participant_id, status);');
    this.addSql(`
      create table chat_messages (
        id uuid primary key default gen_random_uuid(),
        chat_id uuid not null references chats (id) on delete cascade,
        sender_id uuid not null references users (id) on delete cascade,
        content text not null check (char_length(content) between 1 and 2000),
        created_at timestamptz not null default now()
      );`);
    this.addSql('create index chat_messages_page_idx on chat_messages (chat_id, created_at desc, id desc);');
    this.addSql('create index chat_messages_sender_idx on chat_messages (sender_id);');
  }

  override down(): void {
    this.addSql('drop table if exists chat_messages, chats, global_chat_messages;');
  }
}
