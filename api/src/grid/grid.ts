import type { AttackService } from '../attacks/service.ts';
import type { BoxService } from '../boxes/service.ts';
import type { Orm } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import type { VpnService } from '../vpn/service.ts';
import type { Blocks } from '../users/blocks.ts';
import { Geo } from './geo.ts';
import { Matchmaking, type MmrWindow } from './matchmaking.ts';
import { Notifications } from '../notifications/notifications.ts';
import { Presence } from './presence.ts';
import { Pvp } from './pvp.ts';
import { TargetInfoService } from './target-info.ts';

export interface GridSettings {
  presenceGraceMs: number;
  matchTickMs: number;
  proposalMs: number;
  noMatchAfterMs: number;
  pvpRequestMs: number;
  targetInfoCacheMs: number;
  window?: Partial<MmrWindow>;
}

/** The Grid's services (docs/grid.md), made once per API process; `wireGrid` connects them to /grid. */
export interface Grid {
  geo: Geo;
  presence: Presence;
  blocks: Blocks;
  notifications: Notifications;
  matchmaking: Matchmaking;
  pvp: Pvp;
  targetInfo: TargetInfoService;
  start(): void;
  stop(): Promise<void>;
}

export function createGrid(deps: {
  orm: Orm;
  boxes: BoxService;
  vpn: VpnService;
  attacks: AttackService;
  logger: Logger;
  settings: GridSettings;
  /** Who blocked whom (users/): the chat reads them too. */
  blocks: Blocks;
  /** Made by the caller when services outside the Grid (boxes) send notifications too. */
  notifications?: Notifications;
}): Grid {
  const { orm, boxes, vpn, attacks, logger, settings, blocks } = deps;
  const geo = new Geo();
  const presence = new Presence({ geo, graceMs: settings.presenceGraceMs });
  const isOnline = (userId: string) => presence.isOnline(userId);
  const matchmaking = new Matchmaking({
    orm,
    boxes,
    vpn,
    attacks,
    logger,
    attackSeconds: attacks.timeLimitMs / 1000,
    isOnline,
    tickMs: settings.matchTickMs,
    proposalMs: settings.proposalMs,
    noMatchAfterMs: settings.noMatchAfterMs,
    window: settings.window,
  });
  const pvp = new Pvp({ orm, attacks, vpn, blocks, isOnline, requestMs: settings.pvpRequestMs });
  const notifications = deps.notifications ?? new Notifications(orm);
  return {
    geo,
    presence,
    blocks,
    notifications,
    matchmaking,
    pvp,
    targetInfo: new TargetInfoService(orm, settings.targetInfoCacheMs),
    start: () => matchmaking.start(),
    stop: async () => {
      await matchmaking.stop();
      pvp.close();
      presence.close();
    },
  };
}
