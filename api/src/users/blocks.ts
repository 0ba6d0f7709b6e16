import type { EntityManager } from '@mikro-orm/postgresql';
import { GRID_MESSAGES, type BlockedUser } from '../contracts/index.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import { badRequest, notFound } from '../http/errors.ts';

/**
 * Blocks between players: a blocked pair (either direction) cannot challenge or be matched with each
 * other; the chat filters by the same table.
 */
export class Blocks {
  readonly #orm: Orm;

  constructor(orm: Orm) {
    this.#orm = orm;
  }

  #sql() {
    return new Sql(this.#orm.em.fork() as EntityManager);
  }

  /** Blocks `blockedId` for `blockerId` (again is fine); answers the blocked user. */
  async block(blockerId: string, blockedId: string): Promise<BlockedUser> {
    if (blockerId === blockedId) throw badRequest(GRID_MESSAGES.blockSelf);
    const sql = this.#sql();
    const user = await sql.one<BlockedUser>('select id, handle from users where id = ?', [blockedId]);
    if (!user) throw notFound(GRID_MESSAGES.playerNotFound);
    await sql.run('insert into user_blocks (blocker_id, blocked_id) values (?, ?) on conflict do nothing', [
      blockerId,
      blockedId,
    ]);
    return user;
  }

  /** Answers whether there was a block to remove. */
  async unblock(blockerId: string, blockedId: string): Promise<boolean> {
    return (
      (await this.#sql().run('delete from user_blocks where blocker_id = ? and blocked_id = ?', [
        blockerId,
        blockedId,
      ])) > 0
    );
  }

  /** The users `userId` blocked, by handle. */
  list(userId: string): Promise<BlockedUser[]> {
    return this.#sql().all<BlockedUser>(
      `select u.id, u.handle from user_blocks b join users u on u.id = b.blocked_id
        where b.blocker_id = ? order by lower(u.handle)`,
      [userId],
    );
  }

  /** Whether either of the two blocked the other. */
  async eitherBlocked(a: string, b: string): Promise<boolean> {
    return !!(await this.#sql().one(
      `select 1 from user_blocks where (blocker_id = ? and blocked_id = ?) or (blocker_id = ? and blocked_id = ?)`,
      [a, b, b, a],
    ));
  }
}
