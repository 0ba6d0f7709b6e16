import { expect } from 'chai';
import { createTestDatabase } from '../testing/setup.ts';
import { testLogger } from '../testing/logger.ts';
import { migrations } from './migrations/index.ts';
import { openDatabase } from './orm.ts';

describe('database', () => {
  it('applies every committed migration on open, once', async () => {
    const db = await createTestDatabase();
    try {
      for (let run = 0; run < 2; run++) {
        const orm = await openDatabase(db.url, testLogger);
        try {
          const connection = orm.em.fork().getConnection();
          const applied = (await connection.execute('select name from mikro_orm_migrations order by id')) as {
            name: string;
          }[];
          expect(applied.map((m) => m.name)).to.deep.equal(migrations.map((m) => m.name));
          const [ext] = await connection.execute(
            "select count(*)::int as n from pg_extension where extname = 'citext'",
          );
          expect(ext).to.deep.equal({ n: 1 });
        } finally {
          await orm.close();
        }
      }
    } finally {
      await db.drop();
    }
  });

  it('fails to open with a clear error when the database cannot be reached', async () => {
    let error: Error | undefined;
    try {
      await openDatabase('postgresql://nobody:nothing@127.0.0.1:1/none', testLogger);
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).to.match(/ECONNREFUSED|connect/i);
  });
});
