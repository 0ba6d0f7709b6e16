import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Plain parametrised SQL (`?` placeholders) on an EntityManager's connection, inside its
 * transaction when it has one. Services use it where a statement must be exact: conditional
 * updates that make double use impossible, row locks, upserts.
 */
export class Sql {
  readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  async all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.em
      .getConnection()
      .execute(sql, params, 'all', this.em.getTransactionContext())) as T[];
  }

  async one<T>(sql: string, params: unknown[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  /** Runs a statement and answers how many rows it changed. */
  async run(sql: string, params: unknown[] = []): Promise<number> {
    const result = (await this.em
      .getConnection()
      .execute(sql, params, 'run', this.em.getTransactionContext())) as {
      affectedRows: number;
    };
    return result.affectedRows;
  }

  /** Runs `fn` in a transaction (joins the current one if any). */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    return this.em.transactional((em) => fn(new Sql(em as EntityManager)));
  }
}

/** PostgreSQL's unique_violation, with the constraint that was hit. */
export function uniqueViolation(err: unknown): string | null {
  if (typeof err === 'object' && err !== null && 'code' in err && err.code === '23505') {
    return 'constraint' in err && typeof err.constraint === 'string' ? err.constraint : '';
  }
  return null;
}
