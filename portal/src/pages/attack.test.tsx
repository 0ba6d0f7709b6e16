import {
  GRID_NAMESPACE,
  VPN_STATUS_NAMESPACE,
  type AttackOutcome,
  type GridInitialState,
} from '@exploit-grid/api/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ACTIVE_ATTACK,
  BLOCK,
  DISMISS,
  ENGAGE,
  FIND_A_MARK,
  FIND_DISABLED,
  FIX_ON_MY_BOX,
  GEO_ATTRIBUTION,
  GEO_ATTRIBUTION_URL,
  LEAVE_QUEUE,
  LOCATION_UNKNOWN,
  MATCH_FOUND_TITLE,
  NO_WEBGL,
  OPERATORS_ONLINE,
  PVP,
  QUEUE_TITLE,
  SERVICES_ATTACKER_HINT,
  SERVICES_DEFENDER_HINT,
  TARGET_ACQUIRED,
  TOO_HARD,
  UNBLOCK,
  UNDER_ATTACK,
  UNRATED_FIGHT,
  UNRATED_RESULT,
  WAITING_FOR_OPPONENT,
  queuePosition,
} from '../strings/grid.ts';
import { fail, reply, testBox, type FakeReply } from '../testing/fakeApi.ts';
import type { FakeSocket } from '../testing/fakeSockets.ts';
import {
  acid,
  crash,
  gridAttack,
  gridPlayer,
  matchProposal,
  me,
  targetBox,
  targetInfo,
} from '../testing/grid.ts';
import { renderSignedIn } from '../test-utils.tsx';

const players = [
  gridPlayer(acid, { mmr: 1200 }),
  gridPlayer(crash, { mmr: 1100, country: 'Germany', countryCode: 'DE', latitude: 51, longitude: 9 }),
  gridPlayer(me),
];

const targetInfoRoute = (id: string) => `GET /attack/target-info/${id}`;

/** /attack for a signed-in operator, the fake sockets opened; the operator is not queued from before. */
async function renderGrid(routes: Record<string, FakeReply> = {}) {
  const rendered = renderSignedIn('/attack', {
    'GET /attack/queue/estimate': reply(200, { estimateSeconds: -1 }),
    // A running box: what the server requires to queue (besides the VPN).
    'GET /boxes/my': reply(200, testBox),
    ...routes,
  });
  // The first render loads the whole app: give it time.
  await waitFor(() => expect(rendered.sockets.open(GRID_NAMESPACE)).toHaveLength(1), { timeout: 5000 });
  const [grid] = rendered.sockets.open(GRID_NAMESPACE) as [FakeSocket];
  const [vpn] = rendered.sockets.open(VPN_STATUS_NAMESPACE) as [FakeSocket];
  return { ...rendered, grid, vpn };
}

/** The server plays `event` on a socket. */
const play = (socket: FakeSocket, event: string, ...args: unknown[]) =>
  act(() => socket.receive(event, ...args));

/** The grid connects and sends its state; the VPN reports `vpn`. */
function enter(
  { grid, vpn }: { grid: FakeSocket; vpn: FakeSocket },
  state: Partial<GridInitialState> = {},
  vpnConnected = true,
) {
  act(() => {
    grid.receive('connect');
    grid.receive('initialState', {
      players,
      attacks: [],
      globalChatMessages: [],
      blockedUsers: [],
      ...state,
    });
    vpn.receive('connect');
    vpn.receive('status', { status: vpnConnected });
  });
}

const findButton = () => screen.getByRole('button', { name: FIND_A_MARK }) as HTMLButtonElement;
const region = (name: string) => screen.getByRole('region', { name });
/** Opens the popup of a player from the operators list. */
async function pick(handle: string) {
  const list = await screen.findByRole('list', { name: OPERATORS_ONLINE });
  fireEvent.click(within(list).getByRole('button', { name: new RegExp(handle) }));
  return screen.findByRole('region', { name: handle });
}

beforeEach(() => {
  // jsdom plays no sound (the store logs that); failed requests are logged too.
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

describe('the Grid page', () => {
  it("is titled 'The Grid | Exploit Grid' and says the globe needs WebGL", async () => {
    await renderGrid();
    await waitFor(() => expect(document.title).toBe('The Grid | Exploit Grid'));
    expect(screen.getByRole('heading', { level: 1, name: 'The Grid' })).toBeTruthy();
    expect(screen.getByRole('note').textContent).toBe(NO_WEBGL);
    expect(screen.queryByTestId('globe')).toBeNull();
  });

  it("lists the operators online, by MMR, with their country or 'Location Unknown'", async () => {
    const sockets = await renderGrid();
    enter(sockets);
    const list = await screen.findByRole('list', { name: OPERATORS_ONLINE });
    expect(
      within(list)
        .getAllByRole('button')
        .map((item) => item.textContent),
    ).toEqual([
      `acid_burnMMR 1200 · ${LOCATION_UNKNOWN}`,
      'crash_overrideMMR 1100 · Germany',
      `zero_cool (You)MMR 1000 · ${LOCATION_UNKNOWN}`,
    ]);
    expect(screen.getByText(`${OPERATORS_ONLINE} (3)`)).toBeTruthy();
  });

  it('credits DB-IP for the geolocation', async () => {
    await renderGrid();
    const link = screen.getByRole('link', { name: GEO_ATTRIBUTION });
    expect(link.getAttribute('href')).toBe(GEO_ATTRIBUTION_URL);
    expect(GEO_ATTRIBUTION_URL).toBe('https://db-ip.com');
    expect(link.getAttribute('target')).toBe('_blank');
  });

  it('enables Find a Mark only once the grid is connected and its state arrived', async () => {
    const { grid, vpn } = await renderGrid();
    expect(findButton().disabled).toBe(true);
    play(grid, 'connect');
    expect(findButton().disabled).toBe(true);
    enter({ grid, vpn });
    expect(findButton().disabled).toBe(false);
    play(grid, 'disconnect');
    expect(findButton().disabled).toBe(true);
  });
});

describe('the target popup', () => {
  it("shows MMR, 'Location Unknown' and the defense once the target info is in", async () => {
    const sockets = await renderGrid({ [targetInfoRoute(acid.id)]: reply(200, targetInfo(acid, 66.6)) });
    enter(sockets);
    const popup = await pick(acid.handle);
    expect(within(popup).getByText('MMR 1200')).toBeTruthy();
    expect(within(popup).getByText(LOCATION_UNKNOWN)).toBeTruthy();
    await waitFor(() => expect(within(popup).getByTestId('target-defense').textContent).toBe('Defense: 67%'));
    expect(within(popup).getByTestId('target-ports').textContent).toBe('Ports: 22/SSH · 8080/NetDiag');
  });

  it('shows the country of a located player', async () => {
    const sockets = await renderGrid({ [targetInfoRoute(crash.id)]: reply(200, targetInfo(crash, 20)) });
    enter(sockets);
    const popup = await pick(crash.handle);
    expect(within(popup).getByText('MMR 1100')).toBeTruthy();
    expect(within(popup).getByText('Germany')).toBeTruthy();
    await waitFor(() => expect(within(popup).getByTestId('target-defense').textContent).toBe('Defense: 20%'));
  });

  it("closes and toasts 'Could not load target details.' when the info cannot be loaded", async () => {
    const sockets = await renderGrid({ [targetInfoRoute(acid.id)]: fail(500, 'Boom') });
    enter(sockets);
    await pick(acid.handle);
    expect(await screen.findByText('Could not load target details.')).toBeTruthy();
    expect(screen.queryByRole('region', { name: acid.handle })).toBeNull();
  });

  it('disables PVP without the VPN even with the target info', async () => {
    const sockets = await renderGrid({ [targetInfoRoute(acid.id)]: reply(200, targetInfo(acid, 50)) });
    enter(sockets, {}, false);
    const popup = await pick(acid.handle);
    await waitFor(() => expect(within(popup).getByTestId('target-defense').textContent).toBe('Defense: 50%'));
    expect((within(popup).getByRole('button', { name: PVP }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('enables PVP with the VPN and the target info, and challenges with pvp:request', async () => {
    const sockets = await renderGrid({ [targetInfoRoute(acid.id)]: reply(200, targetInfo(acid, 50)) });
    enter(sockets);
    const popup = await pick(acid.handle);
    const pvp = within(popup).getByRole('button', { name: PVP }) as HTMLButtonElement;
    await waitFor(() => expect(pvp.disabled).toBe(false));
    fireEvent.click(pvp);
    expect(sockets.grid.argsOf('pvp:request')).toEqual([[{ targetId: acid.id }]]);
  });

  it('blocks with chat:block and offers Unblock once the server confirms', async () => {
    const sockets = await renderGrid({ [targetInfoRoute(acid.id)]: reply(200, targetInfo(acid, 50)) });
    enter(sockets);
    const popup = await pick(acid.handle);
    fireEvent.click(within(popup).getByRole('button', { name: BLOCK }));
    expect(sockets.grid.argsOf('chat:block')).toEqual([[{ blockUserId: acid.id }]]);
    play(sockets.grid, 'userBlocked', acid);
    fireEvent.click(within(popup).getByRole('button', { name: UNBLOCK }));
    expect(sockets.grid.argsOf('chat:unblock')).toEqual([[{ unblockUserId: acid.id }]]);
    play(sockets.grid, 'userUnblocked', { id: acid.id });
    expect(within(popup).getByRole('button', { name: BLOCK })).toBeTruthy();
  });
});

describe('matchmaking', () => {
  it('shows the queue card after Find a Mark and hides it on Leave Queue', async () => {
    const sockets = await renderGrid({
      'POST /attack/queue/join': reply(200, { estimateSeconds: 42, position: 3, queued: true }),
      'POST /attack/queue/leave': reply(204),
    });
    enter(sockets);
    fireEvent.click(findButton());
    const card = await screen.findByRole('region', { name: QUEUE_TITLE });
    expect(within(card).getByText(queuePosition(3))).toBeTruthy();
    expect(within(card).getByTestId('queue-estimate').textContent).toMatch(/^Estimated wait: 4[12]s$/);
    expect(findButton().disabled).toBe(true);
    fireEvent.click(within(card).getByRole('button', { name: LEAVE_QUEUE }));
    await waitFor(() => expect(screen.queryByRole('region', { name: QUEUE_TITLE })).toBeNull());
    expect(sockets.api.callsTo('POST /attack/queue/leave')).toHaveLength(1);
    expect(findButton().disabled).toBe(false);
  });

  it('keeps Find a Mark disabled without the VPN, says why and where to fix it, and never calls', async () => {
    const sockets = await renderGrid({
      'POST /attack/queue/join': reply(200, { estimateSeconds: 42, position: 3, queued: true }),
    });
    enter(sockets, {}, false);
    await waitFor(() => expect(findButton().disabled).toBe(true));
    const why = document.getElementById(findButton().getAttribute('aria-describedby') ?? '');
    expect(why?.textContent).toBe(`${FIND_DISABLED.noVpn} ${FIX_ON_MY_BOX}`);
    expect(within(why!).getByRole('link', { name: FIX_ON_MY_BOX }).getAttribute('href')).toBe('/box');
    fireEvent.click(findButton());
    expect(sockets.api.callsTo('POST /attack/queue/join')).toHaveLength(0);
    play(sockets.vpn, 'status', { status: true });
    expect(findButton().disabled).toBe(false);
  });

  it('keeps Find a Mark disabled while the box is not running', async () => {
    const sockets = await renderGrid({ 'GET /boxes/my': reply(200, { ...testBox, status: 'STOPPED' }) });
    enter(sockets);
    await waitFor(() => expect(findButton().getAttribute('aria-describedby')).toBe('find-a-mark-why'));
    expect(screen.getByText(FIND_DISABLED.noBox)).toBeTruthy();
    expect(findButton().disabled).toBe(true);
  });

  it('shows Match Found with Engage and Dismiss, then waits for the opponent after Engage', async () => {
    const sockets = await renderGrid({
      'POST /attack/queue/engage': reply(200, { started: false, attack: null, box: null }),
    });
    enter(sockets);
    const match = matchProposal();
    play(sockets.grid, 'match:found', match);
    const card = await screen.findByRole('region', { name: MATCH_FOUND_TITLE });
    expect(within(card).getByText(acid.handle)).toBeTruthy();
    expect(within(card).getByTestId('match-countdown').textContent).toMatch(/^Expires in (29|30)s$/);
    expect(await screen.findByText('Match found: acid_burn. Press Engage to start.')).toBeTruthy();
    expect(within(card).getByRole('button', { name: DISMISS })).toBeTruthy();
    fireEvent.click(within(card).getByRole('button', { name: ENGAGE }));
    expect(await within(card).findByText(WAITING_FOR_OPPONENT)).toBeTruthy();
    expect(sockets.api.callsTo('POST /attack/queue/engage').map((call) => call.body)).toEqual([
      { proposalId: match.proposalId },
    ]);
  });

  it('removes the Match Found card on Dismiss', async () => {
    const sockets = await renderGrid({ 'POST /attack/queue/dismiss': reply(204) });
    enter(sockets);
    play(sockets.grid, 'match:found', matchProposal());
    const card = await screen.findByRole('region', { name: MATCH_FOUND_TITLE });
    fireEvent.click(within(card).getByRole('button', { name: DISMISS }));
    await waitFor(() => expect(screen.queryByRole('region', { name: MATCH_FOUND_TITLE })).toBeNull());
    expect(sockets.api.callsTo('POST /attack/queue/dismiss')).toHaveLength(1);
  });
});

describe('attacks', () => {
  it("shows Target Acquired with the box's IP to the attacker, and cancels with 'Too Hard For Me'", async () => {
    const box = targetBox();
    const mine = gridAttack(me, acid, { box });
    const sockets = await renderGrid({ [`POST /attack/${mine.id}/cancel`]: reply(204) });
    enter(sockets);
    play(sockets.grid, 'attackStarted', mine);
    const card = await screen.findByRole('region', { name: TARGET_ACQUIRED });
    expect(within(card).getByTestId('target-ip').textContent).toBe(box.ip);
    expect(within(card).getByText(box.hostname)).toBeTruthy();
    expect(within(card).getByText('22/ssh')).toBeTruthy();
    expect(screen.queryByRole('region', { name: UNDER_ATTACK })).toBeNull();
    expect(findButton().disabled).toBe(true);
    fireEvent.click(within(region(ACTIVE_ATTACK)).getByRole('button', { name: TOO_HARD }));
    await waitFor(() => expect(sockets.api.callsTo(`POST /attack/${mine.id}/cancel`)).toHaveLength(1));
  });

  it('shows the box IP once attackBoxUpdated brings it', async () => {
    const mine = gridAttack(me, acid);
    const box = targetBox();
    const sockets = await renderGrid();
    enter(sockets);
    play(sockets.grid, 'attackStarted', mine);
    const card = await screen.findByRole('region', { name: TARGET_ACQUIRED });
    expect(within(card).getByTestId('target-ip').textContent).not.toBe(box.ip);
    play(sockets.grid, 'attackBoxUpdated', { attackId: mine.id, box });
    expect(within(card).getByTestId('target-ip').textContent).toBe(box.ip);
  });

  it('shows Under Attack to the defender', async () => {
    const sockets = await renderGrid();
    enter(sockets);
    play(sockets.grid, 'attackStarted', gridAttack(acid, me));
    const card = await screen.findByRole('region', { name: UNDER_ATTACK });
    expect(within(card).getByText(/^acid_burn is attacking your box/)).toBeTruthy();
    expect(screen.queryByRole('region', { name: TARGET_ACQUIRED })).toBeNull();
    expect(screen.queryByRole('button', { name: TOO_HARD })).toBeNull();
  });

  it('says an unrated fight is unrated, on both players’ cards and in its result; says nothing of a rated one', async () => {
    const sockets = await renderGrid();
    enter(sockets);
    const unrated = gridAttack(acid, me, { rated: false });
    play(sockets.grid, 'attackStarted', unrated);
    const card = await screen.findByRole('region', { name: UNDER_ATTACK });
    expect(within(card).getByTestId('attack-unrated').textContent).toBe(UNRATED_FIGHT);
    play(sockets.grid, 'attackEnded', {
      attackId: unrated.id,
      result: 'TIMEOUT',
      winnerId: me.id,
      loserId: acid.id,
    });
    const overlay = await screen.findByRole('alertdialog', { name: 'VICTORY' });
    expect(within(overlay).getByTestId('outcome-unrated').textContent).toBe(UNRATED_RESULT);
    fireEvent.click(overlay);
    const rated = gridAttack(me, acid);
    play(sockets.grid, 'attackStarted', rated);
    await screen.findByRole('region', { name: TARGET_ACQUIRED });
    expect(screen.queryByTestId('attack-unrated')).toBeNull();
  });

  it('shows both players the target’s services as the checks see them, updated by each round', async () => {
    const sockets = await renderGrid();
    enter(sockets);
    const unchecked = [
      { name: 'SSH', port: 22, up: null, downSince: null, detail: null, checkedAt: null },
      { name: 'NetDiag', port: 8080, up: null, downSince: null, detail: null, checkedAt: null },
    ];
    const incoming = gridAttack(acid, me, { services: unchecked });
    play(sockets.grid, 'attackStarted', incoming);
    const card = await screen.findByRole('region', { name: UNDER_ATTACK });
    const list = within(card).getByTestId('attack-services');
    expect(within(list).getByText('22/SSH: unchecked')).toBeTruthy();
    expect(within(list).getByText(SERVICES_DEFENDER_HINT)).toBeTruthy();
    const at = new Date().toISOString();
    play(sockets.grid, 'attackServices', {
      attackId: incoming.id,
      services: [
        { ...unchecked[0]!, up: true, detail: 'port 22: answered as it should', checkedAt: at },
        {
          ...unchecked[1]!,
          up: false,
          downSince: at,
          detail: 'port 8080: no answer (timed out)',
          checkedAt: at,
        },
      ],
    });
    await waitFor(() => expect(within(list).getByText('8080/NetDiag: down')).toBeTruthy());
    expect(within(list).getByText('22/SSH: up')).toBeTruthy();
    expect(within(list).getByText('8080/NetDiag: down').closest('[title]')?.getAttribute('title')).toBe(
      'port 8080: no answer (timed out)',
    );
    // Another attack's round changes nothing here.
    play(sockets.grid, 'attackServices', { attackId: gridAttack(me, acid).id, services: [] });
    expect(within(list).getByText('22/SSH: up')).toBeTruthy();
    play(sockets.grid, 'attackEnded', {
      attackId: incoming.id,
      result: 'TIMEOUT',
      winnerId: me.id,
      loserId: acid.id,
    });
    fireEvent.click(await screen.findByRole('alertdialog', { name: 'VICTORY' }));
    // The attacker sees them too, with what the defender must do; a box without a loadout shows none.
    play(sockets.grid, 'attackStarted', gridAttack(me, acid, { services: unchecked }));
    const active = await screen.findByRole('region', { name: ACTIVE_ATTACK });
    expect(within(active).getByText(SERVICES_ATTACKER_HINT)).toBeTruthy();
  });

  it('shows no services for a target box without a loadout', async () => {
    const sockets = await renderGrid();
    enter(sockets);
    play(sockets.grid, 'attackStarted', gridAttack(acid, me));
    await screen.findByRole('region', { name: UNDER_ATTACK });
    expect(screen.queryByTestId('attack-services')).toBeNull();
  });

  it.each<[string, 'attacker' | 'defender', AttackOutcome, boolean, string]>([
    ['the attacker who owned the box', 'attacker', 'OWNED', true, 'SYSTEM OWNED'],
    ['the defender whose box was owned', 'defender', 'OWNED', false, 'SYSTEM COMPROMISED'],
    ['the attacker who ran out of time', 'attacker', 'TIMEOUT', false, 'ATTACK FAILED'],
    ['the defender who held out', 'defender', 'TIMEOUT', true, 'VICTORY'],
    ['the defender who threw the attacker out', 'defender', 'DEFENDED', true, 'SYSTEM DEFENDED'],
    ['the attacker with a foothold', 'attacker', 'FOOTHOLD', true, 'FOOTHOLD ESTABLISHED'],
  ])('shows %s the outcome overlay', async (_who, role, outcome, won, headline) => {
    const running = role === 'attacker' ? gridAttack(me, acid) : gridAttack(acid, me);
    const sockets = await renderGrid();
    enter(sockets);
    play(sockets.grid, 'attackStarted', running);
    play(sockets.grid, 'attackEnded', {
      attackId: running.id,
      result: outcome,
      winnerId: won ? me.id : acid.id,
      loserId: won ? acid.id : me.id,
    });
    const overlay = await screen.findByRole('alertdialog', { name: headline });
    expect(within(overlay).getByText(headline)).toBeTruthy();
    expect(screen.queryByRole('region', { name: TARGET_ACQUIRED })).toBeNull();
    expect(screen.queryByRole('region', { name: UNDER_ATTACK })).toBeNull();
    fireEvent.click(overlay);
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });
});
