import type { AttackEvent, AttackHistoryItem, AttackOutcome, CommandLog } from '@exploit-grid/api/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { formatDateTime, formatPreciseDateTime } from '../components/history/format.ts';
import { outcomeHeadline, outcomeView, type AttackRole } from '../components/history/outcome.ts';
import { mergeTimeline } from '../stores/HistoryStore.ts';
import {
  ATTACK_EVENTS_FAILED,
  ATTACK_HISTORY,
  ATTACK_IN_PROGRESS,
  ATTACK_TIMELINE,
  CLOSE,
  COMMAND_LOGS_FAILED,
  COPY_IP,
  COPY_IP_FAILED,
  HISTORY_TITLE,
  LOADING_HISTORY,
  LOADING_TIMELINE,
  NO_BATTLES,
  NO_LOGS,
  TIMELINE_ENTRIES,
  SERVICES_NOT_KEPT_UP,
  UNRATED,
  detailsLabel,
  historyLoadFailed,
} from '../strings/history.ts';
import { COPIED, copyLabel } from '../strings/box.ts';
import { deferred, fail, reply, testUser, type FakeReply } from '../testing/fakeApi.ts';
import { renderSignedIn } from '../test-utils.tsx';

const player = (n: number, handle: string) => ({ id: `00000000-0000-4000-8000-00000000000${n}`, handle });
const me = { id: testUser.id, handle: testUser.handle };
const acid = player(1, 'acid_burn');
const crash = player(2, 'crash_override');
const nikon = player(3, 'lord_nikon');
const phreak = player(4, 'phantom_phreak');
const cereal = player(5, 'cereal_killer');
const joey = player(6, 'joey');

let attackSeq = 0;
function attack(
  attacker: { id: string; handle: string },
  target: { id: string; handle: string },
  outcome: AttackOutcome,
  createdAt: string,
): AttackHistoryItem {
  attackSeq += 1;
  const endedAt = outcome === 'PENDING' ? null : new Date(Date.parse(createdAt) + 9 * 60_000).toISOString();
  return {
    id: `a0000000-0000-4000-8000-${String(attackSeq).padStart(12, '0')}`,
    attacker,
    target,
    outcome,
    rated: true,
    targetIp: `10.66.0.${attackSeq + 1}`,
    services: [],
    servicesUp: true,
    createdAt,
    endedAt,
  };
}

/** Newest first, as the API answers. */
const running = attack(me, joey, 'PENDING', '2026-03-06T10:00:00.000Z');
const owned = attack(me, acid, 'OWNED', '2026-03-05T14:05:00.000Z');
const repelled: AttackHistoryItem = {
  ...attack(crash, me, 'TIMEOUT', '2026-03-04T09:30:00.000Z'),
  // Won, with a service down in too many of the checks: not a defence that counts.
  services: [
    {
      name: 'SSH',
      port: 22,
      up: true,
      downSince: null,
      detail: 'port 22: answered as it should',
      checkedAt: '2026-03-04T09:39:00.000Z',
    },
    {
      name: 'NetDiag',
      port: 8080,
      up: true,
      downSince: null,
      detail: 'port 8080: answered as it should',
      checkedAt: '2026-03-04T09:39:00.000Z',
    },
  ],
  servicesUp: false,
};
const evicted = attack(me, nikon, 'DEFENDED', '2026-03-03T20:15:00.000Z');
const breached = attack(phreak, me, 'FOOTHOLD', '2026-03-02T08:00:00.000Z');
const cancelled = attack(me, cereal, 'CANCELLED', '2026-03-01T12:00:00.000Z');
const history = [running, owned, repelled, evicted, breached, cancelled];

const historyRoute = 'GET /attack/history/all?limit=100';
const logsRoute = (item: AttackHistoryItem) => `GET /attack/${item.id}/logs`;
const eventsRoute = (item: AttackHistoryItem) => `GET /attack/${item.id}/attack-logs`;

const command = (
  id: number,
  timestamp: string,
  text: string,
  user = 'www-data',
  cwd = '/var/www',
): CommandLog => ({
  id: String(id),
  timestamp,
  user,
  cwd,
  command: text,
});
const event = (id: number, type: AttackEvent['type'], createdAt: string, message: string): AttackEvent => ({
  id: String(id),
  type,
  createdAt,
  details: { message },
});

/** The kill chain of `owned`: a foothold through the web server, then root. */
const ownedCommands = [
  command(1, '2026-03-05T14:06:00.000Z', 'id'),
  command(2, '2026-03-05T14:07:30.000Z', 'cat /etc/passwd'),
  command(3, '2026-03-05T14:09:00.000Z', 'sudo -i', 'www-data', '/tmp'),
];
const ownedEvents = [
  // Every command also arrives as a COMMAND event, a moment after it ran.
  event(10, 'COMMAND', '2026-03-05T14:06:01.000Z', 'id'),
  event(11, 'FOOTHOLD', '2026-03-05T14:06:01.000Z', 'User shell as www-data: id'),
  event(12, 'AGENT_SILENT', '2026-03-05T14:07:00.000Z', 'The box agent has not reported for 60 s.'),
  event(13, 'COMMAND', '2026-03-05T14:07:31.000Z', 'cat /etc/passwd'),
  event(14, 'COMMAND', '2026-03-05T14:09:01.000Z', 'sudo -i'),
  event(15, 'OWN', '2026-03-05T14:09:01.000Z', 'Root shell: sudo -i'),
];

/** Renders /history with this history and waits for the heading. */
async function historyPage(routes: Record<string, FakeReply | (() => FakeReply | Promise<FakeReply>)> = {}) {
  const rendered = renderSignedIn('/history', { [historyRoute]: reply(200, history), ...routes });
  await screen.findByRole('heading', { level: 1, name: HISTORY_TITLE });
  return rendered;
}

/** The table's body rows, once loaded. */
async function rows() {
  const table = await screen.findByRole('table', { name: ATTACK_HISTORY });
  return within(table).getAllByRole('row').slice(1);
}

const cellTexts = (row: HTMLElement) =>
  within(row)
    .getAllByRole('cell')
    .slice(0, 4)
    .map((cell) => cell.textContent);

/** Opens the timeline of `item` and answers its two calls with these replies. */
async function openTimeline(item: AttackHistoryItem, logs: FakeReply, events: FakeReply) {
  const rendered = await historyPage({ [logsRoute(item)]: logs, [eventsRoute(item)]: events });
  await rows();
  const opponent = item.attacker.id === me.id ? item.target : item.attacker;
  fireEvent.click(screen.getByRole('button', { name: detailsLabel(opponent.handle) }));
  const dialog = await screen.findByRole('dialog', { name: ATTACK_TIMELINE });
  await waitFor(() => expect(within(dialog).queryByRole('status', { name: LOADING_TIMELINE })).toBeNull());
  return { ...rendered, dialog };
}

describe('Kill Chains /history', () => {
  it("lists the 100 latest attacks: role, opponent, outcome from the viewer's side, local date", async () => {
    const { api } = await historyPage();
    await waitFor(() => expect(document.title).toBe('Kill Chains | Exploit Grid'));
    const body = await rows();
    expect(body.map(cellTexts)).toEqual([
      ['Attack', 'joey', 'In Progress', formatDateTime(running.createdAt)],
      ['Attack', 'acid_burn', 'Owned', formatDateTime(owned.createdAt)],
      ['Defense', 'crash_override', 'Survived', formatDateTime(repelled.createdAt)],
      ['Attack', 'lord_nikon', 'Defended', formatDateTime(evicted.createdAt)],
      ['Defense', 'phantom_phreak', 'Was Breached', formatDateTime(breached.createdAt)],
      ['Attack', 'cereal_killer', 'Lost Nerve', formatDateTime(cancelled.createdAt)],
    ]);
    const colours = body.map((row) => within(row).getByTestId('outcome').getAttribute('data-result'));
    expect(colours).toEqual(['pending', 'won', 'won', 'lost', 'lost', 'none']);
    expect(api.callsTo(historyRoute)).toHaveLength(1);
    expect(api.callsTo(historyRoute)[0]?.authorization).toBe('Bearer token-1');
  });

  it("marks a fight that moved no MMR 'Unrated' beside its outcome", async () => {
    const unrated = { ...owned, id: 'a0000000-0000-4000-8000-0000000000ff', rated: false };
    await historyPage({ [historyRoute]: reply(200, [unrated, repelled]) });
    const [first, second] = await rows();
    expect(cellTexts(first!)[2]).toBe('OwnedUnrated');
    expect(within(first!).getByTestId('history-unrated').textContent).toBe(UNRATED);
    expect(within(second!).queryByTestId('history-unrated')).toBeNull();
  });

  it("labels and colours each outcome as the spec's outcome table says, from each side", () => {
    const cases: [AttackOutcome, AttackRole, string, string][] = [
      ['OWNED', 'attack', 'Owned', 'error'],
      ['OWNED', 'defense', 'Was Owned', 'error'],
      ['FOOTHOLD', 'attack', 'Foothold', 'warning'],
      ['FOOTHOLD', 'defense', 'Was Breached', 'warning'],
      ['DEFENDED', 'attack', 'Defended', 'success'],
      ['DEFENDED', 'defense', 'Survived', 'success'],
      ['TIMEOUT', 'attack', 'Timed Out', 'success'],
      ['TIMEOUT', 'defense', 'Survived', 'success'],
      ['PENDING', 'attack', 'In Progress', 'default'],
      ['PENDING', 'defense', 'In Progress', 'default'],
      ['CANCELLED', 'attack', 'Lost Nerve', 'default'],
      ['CANCELLED', 'defense', 'Attacker Bailed', 'default'],
    ];
    for (const [outcome, role, label, color] of cases) {
      expect(outcomeView(outcome, role), `${outcome} ${role}`).toMatchObject({ label, color });
    }
    // The Grid's overlay texts (core-app section 4).
    expect(outcomeHeadline('OWNED', true)).toBe('SYSTEM OWNED');
    expect(outcomeHeadline('TIMEOUT', true)).toBe('VICTORY');
    expect(outcomeHeadline('DEFENDED', false)).toBe('DEFEAT');
  });

  it("disables Details while the attack is in progress, with the tooltip 'Attack is still in progress'", async () => {
    await historyPage();
    const [first, second] = await rows();
    const details = within(first!).getByRole('button', { name: detailsLabel('joey') });
    expect((details as HTMLButtonElement).disabled).toBe(true);
    expect(
      (within(second!).getByRole('button', { name: detailsLabel('acid_burn') }) as HTMLButtonElement)
        .disabled,
    ).toBe(false);
    fireEvent.mouseOver(details.parentElement!);
    expect((await screen.findByRole('tooltip')).textContent).toBe(ATTACK_IN_PROGRESS);
    fireEvent.click(details);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it("says 'No battles fought yet.' without attacks", async () => {
    await historyPage({ [historyRoute]: reply(200, []) });
    expect(await screen.findByText(NO_BATTLES)).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('shows a skeleton while the history loads', async () => {
    const answer = deferred<FakeReply>();
    await historyPage({ [historyRoute]: () => answer.promise });
    expect(screen.getByRole('status', { name: LOADING_HISTORY })).toBeTruthy();
    answer.resolve(reply(200, history));
    expect(await rows()).toHaveLength(history.length);
    expect(screen.queryByRole('status', { name: LOADING_HISTORY })).toBeNull();
  });

  it("toasts 'Failed to load attack history: {msg}' when the list cannot be loaded", async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await historyPage({ [historyRoute]: fail(500, 'Database unavailable') });
    expect(await screen.findByText(historyLoadFailed('Database unavailable'))).toBeTruthy();
    expect(screen.queryByText(NO_BATTLES)).toBeNull();
  });

  it("copies the target's IP from the timeline ('Copied' for 2 s), and says so when the clipboard refuses", async () => {
    const writeText = vi.fn<(text: string) => Promise<void>>().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    try {
      const { dialog } = await openTimeline(owned, reply(200, ownedCommands), reply(200, ownedEvents));
      const header = within(dialog).getByTestId('timeline-header');
      expect(within(header).getByText(owned.targetIp!)).toBeTruthy();
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      await act(async () => {
        fireEvent.click(within(header).getByRole('button', { name: copyLabel(COPY_IP) }));
      });
      expect(writeText).toHaveBeenCalledWith(owned.targetIp);
      expect(within(header).getByText(COPIED)).toBeTruthy();
      act(() => vi.advanceTimersByTime(2000));
      expect(within(header).queryByText(COPIED)).toBeNull();
      vi.useRealTimers();

      vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      writeText.mockRejectedValue(new Error('denied'));
      fireEvent.click(within(header).getByRole('button', { name: copyLabel(COPY_IP) }));
      expect(await screen.findByText(COPY_IP_FAILED)).toBeTruthy();
      expect(within(header).queryByText(COPIED)).toBeNull();
    } finally {
      Reflect.deleteProperty(navigator, 'clipboard');
    }
  });

  it('opens the timeline: header, then commands and events merged in time order, each command once', async () => {
    const { api, dialog } = await openTimeline(owned, reply(200, ownedCommands), reply(200, ownedEvents));
    const header = within(dialog).getByTestId('timeline-header');
    expect(within(header).getByText('acid_burn')).toBeTruthy();
    expect(within(header).getByText('Attack')).toBeTruthy();
    expect(within(header).getByTestId('outcome').textContent).toBe('Owned');
    expect(within(header).getByText(formatPreciseDateTime(owned.createdAt))).toBeTruthy();
    expect(within(header).getByText(formatPreciseDateTime(owned.endedAt!))).toBeTruthy();

    const entries = within(within(dialog).getByRole('list', { name: TIMELINE_ENTRIES })).getAllByRole(
      'listitem',
    );
    const lines = entries.map((entry) => [
      entry.getAttribute('data-kind'),
      (entry.querySelector('[data-testid^="timeline-"]') as HTMLElement).textContent,
    ]);
    expect(lines).toEqual([
      ['command', 'www-data@/var/www $ id'],
      ['event', 'User shell as www-data: id'],
      ['event', 'The box agent has not reported for 60 s.'],
      ['command', 'www-data@/var/www $ cat /etc/passwd'],
      ['command', 'www-data@/tmp $ sudo -i'],
      ['event', 'Root shell: sudo -i'],
    ]);
    expect(within(entries[1]!).getByText('FOOTHOLD')).toBeTruthy();
    expect(within(entries[5]!).getByText('OWN')).toBeTruthy();
    expect(api.callsTo(logsRoute(owned))).toHaveLength(1);
    expect(api.callsTo(eventsRoute(owned))).toHaveLength(1);

    fireEvent.click(within(dialog).getByRole('button', { name: CLOSE }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('says whether the defender kept the services up, and shows their checks’ changes in the timeline', async () => {
    const events = [
      event(
        20,
        'SERVICE_DOWN',
        '2026-03-04T09:31:00.000Z',
        'NetDiag (port 8080) failed its check: port 8080: no answer (timed out).',
      ),
      event(21, 'SERVICE_UP', '2026-03-04T09:35:00.000Z', 'NetDiag (port 8080) passes its check again.'),
    ];
    const { dialog } = await openTimeline(repelled, reply(200, []), reply(200, events));
    const header = within(dialog).getByTestId('timeline-header');
    expect(within(header).getByTestId('timeline-services').textContent).toBe(SERVICES_NOT_KEPT_UP);
    const entries = within(within(dialog).getByRole('list', { name: TIMELINE_ENTRIES })).getAllByRole(
      'listitem',
    );
    expect(entries.map((e) => within(e).getByText(/^SERVICE_/).textContent)).toEqual([
      'SERVICE_DOWN',
      'SERVICE_UP',
    ]);
    fireEvent.click(within(dialog).getByRole('button', { name: CLOSE }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    // An attack whose services were never checked says nothing of them.
    const other = await screen.findByRole('button', { name: detailsLabel('acid_burn') });
    fireEvent.click(other);
    const second = await screen.findByRole('dialog', { name: ATTACK_TIMELINE });
    expect(within(second).queryByTestId('timeline-services')).toBeNull();
  });

  it('fetches the command logs and the events at once', async () => {
    const logs = deferred<FakeReply>();
    const events = deferred<FakeReply>();
    const { api } = await historyPage({
      [logsRoute(repelled)]: () => logs.promise,
      [eventsRoute(repelled)]: () => events.promise,
    });
    await rows();
    fireEvent.click(screen.getByRole('button', { name: detailsLabel('crash_override') }));
    const dialog = await screen.findByRole('dialog', { name: ATTACK_TIMELINE });
    expect(within(dialog).getByRole('status', { name: LOADING_TIMELINE })).toBeTruthy();
    await waitFor(() => expect(api.callsTo(eventsRoute(repelled))).toHaveLength(1));
    expect(api.callsTo(logsRoute(repelled))).toHaveLength(1);
    events.resolve(reply(200, []));
    logs.resolve(reply(200, []));
    expect(await within(dialog).findByText(NO_LOGS)).toBeTruthy();
    expect(within(dialog).getByText('Defense')).toBeTruthy();
  });

  it("says 'Failed to load command logs' and still shows the events", async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { dialog } = await openTimeline(owned, fail(500, 'Boom'), reply(200, ownedEvents));
    expect(within(dialog).getByRole('alert').textContent).toBe(COMMAND_LOGS_FAILED);
    expect(within(dialog).getByText('Root shell: sudo -i')).toBeTruthy();
    // Without the command lines, the COMMAND events are all there is of the commands.
    expect(within(dialog).getByText('cat /etc/passwd')).toBeTruthy();
    expect(within(dialog).queryByText(NO_LOGS)).toBeNull();
  });

  it("says 'Failed to load attack events' and still shows the commands", async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { dialog } = await openTimeline(owned, reply(200, ownedCommands), fail(500, 'Boom'));
    expect(within(dialog).getByRole('alert').textContent).toBe(ATTACK_EVENTS_FAILED);
    expect(within(dialog).getAllByTestId('timeline-command')).toHaveLength(3);
    expect(within(dialog).queryByTestId('timeline-event')).toBeNull();
  });

  it('shows both errors when neither half loads', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { dialog } = await openTimeline(owned, fail(500, 'Boom'), fail(404, 'Attack not found.'));
    const alerts = within(dialog)
      .getAllByRole('alert')
      .map((alert) => alert.textContent);
    expect(alerts).toEqual([COMMAND_LOGS_FAILED, ATTACK_EVENTS_FAILED]);
    expect(within(dialog).queryByText(NO_LOGS)).toBeNull();
  });

  it("says 'No logs available for this attack.' when both are empty", async () => {
    const { dialog } = await openTimeline(evicted, reply(200, []), reply(200, []));
    expect(within(dialog).getByText(NO_LOGS)).toBeTruthy();
    expect(within(dialog).queryByRole('alert')).toBeNull();
    expect(within(dialog).queryByRole('list', { name: TIMELINE_ENTRIES })).toBeNull();
  });
});

describe('mergeTimeline', () => {
  it('keeps a COMMAND event that has no command line, and each side in the order it came', () => {
    const commands = [command(1, '2026-03-05T14:00:00.000Z', 'ls')];
    const events = [
      event(1, 'COMMAND', '2026-03-05T13:59:00.000Z', 'whoami'),
      event(2, 'COMMAND', '2026-03-05T14:00:00.500Z', 'ls'),
      event(3, 'EVICTED', '2026-03-05T14:00:00.000Z', 'gone'),
    ];
    expect(mergeTimeline(commands, events).map((entry) => entry.key)).toEqual([
      'event-1',
      'command-1',
      'event-3',
    ]);
  });
});
