import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AttackOutcome, GridNotification, NotificationType, PlayerRef } from '../contracts/index.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';

interface NotificationRow {
  id: string;
  user_id: string;
  type: NotificationType;
  title: string;
  body: string;
  initiator_id: string | null;
  initiator_handle: string | null;
  chat_id: string | null;
  attack_id: string | null;
  created_at: string;
}

export interface NewNotification {
  userId: string;
  type: NotificationType;
  title: string;
  body: string;
  initiator?: PlayerRef | null;
  chatId?: string | null;
  attackId?: string | null;
}

export interface NotificationEvents {
  /** A new notification for `userId`: sent to their sockets as `notification`. */
  notification: [string, GridNotification];
}

/** How many undelivered notifications a returning player gets (the newest ones). */
const PENDING_LIMIT = 50;

/**
 * Notifications (core-app section 3): stored, pushed to the user's sockets, and pushed again at the
 * next `getInitialState` until a client acknowledges them, so a player who was away sees them on return.
 */
export class Notifications {
  readonly events = new EventEmitter<NotificationEvents>();
  readonly #orm: Orm;

  constructor(orm: Orm) {
    this.#orm = orm;
  }

  #sql() {
    return new Sql(this.#orm.em.fork() as EntityManager);
  }

  /**
   * Stores and pushes one notification. With an attack id, a second one of the same type for the same
   * user and attack is not created (answers null): every notification is delivered once.
   */
  async send(n: NewNotification): Promise<GridNotification | null> {
    const row = await this.#sql().one<NotificationRow>(
      `insert into notifications (user_id, type, title, body, initiator_id, chat_id, attack_id)
       values (?, ?, ?, ?, ?, ?, ?)
       on conflict (user_id, attack_id, type) where attack_id is not null do nothing
       returning *, null::text as initiator_handle`,
      [n.userId, n.type, n.title, n.body, n.initiator?.id ?? null, n.chatId ?? null, n.attackId ?? null],
    );
    if (!row) return null;
    const notification = toNotification({ ...row, initiator_handle: n.initiator?.handle ?? null });
    this.events.emit('notification', n.userId, notification);
    return notification;
  }

  /** What the user has not acknowledged yet, oldest first. */
  async pending(userId: string): Promise<GridNotification[]> {
    const rows = await this.#sql().all<NotificationRow>(
      `select * from (
         select n.*, i.handle as initiator_handle from notifications n
           left join users i on i.id = n.initiator_id
          where n.user_id = ? and n.delivered_at is null
          order by n.created_at desc limit ?) recent
        order by created_at`,
      [userId, PENDING_LIMIT],
    );
    return rows.map(toNotification);
  }

  /** The user's client showed these: not sent again. Only the user's own notifications are touched. */
  async acknowledge(userId: string, ids: string[]): Promise<number> {
    return this.#sql().run(
      `update notifications set delivered_at = now()
        where user_id = ? and delivered_at is null
          and id in (select value::uuid from jsonb_array_elements_text(?::jsonb))`,
      [userId, JSON.stringify(ids)],
    );
  }

  /** ATTACK_INBOUND to the defender when an attack on their box starts. */
  attackStarted(attack: { id: string; attacker: PlayerRef; target: PlayerRef }) {
    return this.send({
      userId: attack.target.id,
      type: 'ATTACK_INBOUND',
      title: 'Incoming attack',
      body: `${attack.attacker.handle} is attacking your box.`,
      initiator: attack.attacker,
      attackId: attack.id,
    });
  }

  /** The outcome, to both players, each from their side (a cancelled attack: to the defender only). */
  async attackEnded(attack: { id: string; attacker: PlayerRef; target: PlayerRef }, outcome: AttackOutcome) {
    const texts = OUTCOME_TEXTS[outcome];
    if (!texts) return;
    const { attacker, target } = attack;
    await this.send({
      userId: target.id,
      type: texts.type,
      title: texts.title,
      body: texts.defender(attacker.handle),
      initiator: attacker,
      attackId: attack.id,
    });
    if (texts.attacker)
      await this.send({
        userId: attacker.id,
        type: texts.type,
        title: texts.title,
        body: texts.attacker(target.handle),
        initiator: target,
        attackId: attack.id,
      });
  }
}

const OUTCOME_TEXTS: Partial<
  Record<
    AttackOutcome,
    {
      type: NotificationType;
      title: string;
      defender: (attacker: string) => string;
      attacker?: (target: string) => string;
    }
  >
> = {
  OWNED: {
    type: 'ATTACK_OWNED',
    title: 'System owned',
    defender: (h) => `${h} got root on your box.`,
    attacker: (h) => `You got root on ${h}'s box.`,
  },
  FOOTHOLD: {
    type: 'ATTACK_FOOTHOLD',
    title: 'Foothold established',
    defender: (h) => `${h} held a foothold on your box until the time ran out.`,
    attacker: (h) => `You held a foothold on ${h}'s box until the time ran out.`,
  },
  DEFENDED: {
    type: 'ATTACK_DEFENDED',
    title: 'System defended',
    defender: (h) => `You evicted ${h} from your box.`,
    attacker: (h) => `${h} evicted you from their box.`,
  },
  TIMEOUT: {
    type: 'ATTACK_TIMEOUT',
    title: 'Attack timed out',
    defender: (h) => `${h} never got in.`,
    attacker: (h) => `Time ran out before you got into ${h}'s box.`,
  },
  CANCELLED: {
    type: 'GENERIC',
    title: 'Attack called off',
    defender: (h) => `${h} called off the attack on your box.`,
  },
};

function toNotification(row: NotificationRow): GridNotification {
  return {
    id: row.id,
    type: row.type,
    title: row.title,
    body: row.body,
    initiator: row.initiator_id ? { id: row.initiator_id, handle: row.initiator_handle ?? '' } : null,
    chatId: row.chat_id,
    attackId: row.attack_id,
    createdAt: new Date(row.created_at).toISOString(),
  };
}
