import type { EntityManager } from '@mikro-orm/postgresql';
import { loadCatalogue, publishedServices, type CatalogueEntry } from '@exploit-grid/operator/catalogue';
import { GRID_MESSAGES, type TargetInfo } from '../contracts/index.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import { notFound } from '../http/errors.ts';

/**
 * GET /attack/target-info/{userId}: how well a player defends (core-app: Defense % in the target
 * popup) — the share of their finished defenses they survived (DEFENDED or TIMEOUT with their services
 * up, docs/game-rules.md; cancelled attacks do not count) — and the ports their box publishes (its loadout's services). Cached per player for `cacheMs`;
 * a settled attack on the player drops their entry.
 */
export class TargetInfoService {
  readonly #orm: Orm;
  readonly #cacheMs: number;
  readonly #cache = new Map<string, { info: TargetInfo; until: number }>();
  readonly #catalogue: CatalogueEntry[];

  constructor(orm: Orm, cacheMs: number, catalogue: CatalogueEntry[] = loadCatalogue()) {
    this.#orm = orm;
    this.#cacheMs = cacheMs;
    this.#catalogue = catalogue;
  }

  async get(userId: string): Promise<TargetInfo> {
    const cached = this.#cache.get(userId);
    if (cached && cached.until > Date.now()) return cached.info;
    const row = await new Sql(this.#orm.em.fork() as EntityManager).one<{
      handle: string;
      mmr: number;
      survived: number;
      total: number;
      loadout: string[] | null;
    }>(
      `select u.handle, u.mmr, (select b.loadout from boxes b where b.user_id = u.id) as loadout,
              count(a.id) filter (where a.status in ('DEFENDED', 'TIMEOUT') and a.services_up)::int as survived,
              count(a.id) filter (where a.status in ('DEFENDED', 'TIMEOUT', 'OWNED', 'FOOTHOLD'))::int as total
         from users u left join attacks a on a.target_id = u.id
        where u.id = ? group by u.id`,
      [userId],
    );
    if (!row) throw notFound(GRID_MESSAGES.playerNotFound);
    const info: TargetInfo = {
      userId,
      handle: row.handle,
      mmr: row.mmr,
      defense: row.total ? Math.round((1000 * row.survived) / row.total) / 10 : 0,
      defensesSurvived: row.survived,
      defensesTotal: row.total,
      ports: publishedServices(this.#catalogue, row.loadout ?? []).map(({ port, name }) => ({ port, name })),
    };
    if (this.#cache.size > 50_000) this.#cache.clear();
    this.#cache.set(userId, { info, until: Date.now() + this.#cacheMs });
    return info;
  }

  invalidate(userId: string): void {
    this.#cache.delete(userId);
  }
}
