import type {
  Attack,
  GridNotification,
  GridPlayer,
  MatchProposal,
  PlayerRef,
  TargetBox,
  TargetInfo,
} from '@exploit-grid/api/contracts';
import { testUser } from './fakeApi.ts';

/** Grid fixtures shared by the store and page tests: players, boxes, attacks, proposals, target info. */

export const me: PlayerRef = { id: testUser.id, handle: testUser.handle };
export const acid: PlayerRef = { id: '00000000-0000-4000-8000-0000000000a1', handle: 'acid_burn' };
export const crash: PlayerRef = { id: '00000000-0000-4000-8000-0000000000c2', handle: 'crash_override' };

/** A player online, 1000 MMR and no known place unless told. */
export const gridPlayer = (ref: PlayerRef, fields: Partial<GridPlayer> = {}): GridPlayer => ({
  ...ref,
  mmr: 1000,
  country: null,
  countryCode: null,
  latitude: null,
  longitude: null,
  ...fields,
});

export const targetBox = (fields: Partial<TargetBox> = {}): TargetBox => ({
  id: '00000000-0000-4000-8000-0000000000b0',
  hostname: 'acid-burn-box',
  ip: '10.66.0.9',
  status: 'RUNNING',
  openPorts: { '22': 'ssh', '80': 'http' },
  ...fields,
});

let attackCount = 0;
/** A running attack (30 minutes from now), each with an id of its own. */
export const gridAttack = (attacker: PlayerRef, target: PlayerRef, fields: Partial<Attack> = {}): Attack => ({
  id: `10000000-0000-4000-8000-${String(++attackCount).padStart(12, '0')}`,
  attacker,
  target,
  box: null,
  outcome: 'PENDING',
  winnerId: null,
  loserId: null,
  mmrChange: null,
  rated: true,
  services: [],
  servicesUp: true,
  createdAt: new Date().toISOString(),
  endsAt: new Date(Date.now() + 30 * 60_000).toISOString(),
  endedAt: null,
  ...fields,
});

let proposalCount = 0;
/** A match of `me` (attacker) against acid_burn that expires in 30 s. */
export const matchProposal = (fields: Partial<MatchProposal> = {}): MatchProposal => ({
  proposalId: `20000000-0000-4000-8000-${String(++proposalCount).padStart(12, '0')}`,
  attacker: me,
  defender: acid,
  expiresAt: new Date(Date.now() + 30_000).toISOString(),
  ...fields,
});

export const targetInfo = (ref: PlayerRef, defense: number): TargetInfo => ({
  userId: ref.id,
  handle: ref.handle,
  mmr: 1200,
  defense,
  defensesSurvived: 3,
  defensesTotal: 4,
  ports: [
    { port: 22, name: 'SSH' },
    { port: 8080, name: 'NetDiag' },
  ],
});

let notificationCount = 0;
/** A notification (GENERIC unless told), each with an id of its own. */
export const gridNotification = (fields: Partial<GridNotification> = {}): GridNotification => ({
  id: `30000000-0000-4000-8000-${String(++notificationCount).padStart(12, '0')}`,
  type: 'GENERIC',
  title: 'Grid',
  body: 'Something happened.',
  initiator: null,
  chatId: null,
  attackId: null,
  createdAt: '2026-03-01T12:00:00.000Z',
  ...fields,
});
