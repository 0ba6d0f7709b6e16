// First: sets up reflect-metadata and the crypto provider @peculiar/x509 needs.
import '@exploit-grid/operator/pki';
import { randomUUID } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { expect } from 'chai';
import { DEFAULT_LOADOUT_SIZE, loadCatalogue, publishedServices } from '@exploit-grid/operator/catalogue';
import { io as connect, type Socket } from 'socket.io-client';
import {
  BOX_MESSAGES,
  VPN_STATUS_NAMESPACE,
  boxSchema,
  vpnClientSchema,
  vpnPoolStatusSchema,
  type Box,
  type BoxUpdatePayload,
  type VpnClient,
  type VpnConfig,
} from '../contracts/index.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { startBoxPlatform, waitFor, type BoxTestPlatform } from '../testing/boxes.ts';

const SSH_KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHx0b3RhbGx5LWEtdGVzdC1rZXktbm90LXJlYWwtMDAx alice@laptop';
const SPEC_BOX_UPDATE_KEYS = [
  'accumulatedUsageSeconds',
  'dailyRemainingSeconds',
  'hostname',
  'id',
  'lastPoweredAt',
  'openPorts',
  'status',
  'statusReason',
  'vpnClients',
  'vpnIp',
];

describe('boxes and VPN access (API on the test runtime)', function () {
  let t: BoxTestPlatform;

  before(async () => {
    t = await startBoxPlatform({
      env: { VPN_MAX_CLIENTS: '4', VPN_LIMITED_PERCENT: '50' },
      orchestrator: { maxClients: 4, publicHost: 'vpn.grid.test', udpPort: 11940, tcpPort: 11941 },
    });
  });
  afterEach(() => {
    // VPN clients and runtime settings of one test do not leak into the next.
    for (const session of t.orchestrator.vpnSessions()) t.orchestrator.disconnectVpn(session.userId);
    t.orchestrator.boot = 'next-apply';
    t.orchestrator.unavailableReason = null;
  });
  after(() => t?.close());

  const my = async (user: TestAccount) =>
    (await t.call<Box | null>('GET', '/boxes/my', { token: user.token })).body;
  const power = (user: TestAccount, hostname: string, on: boolean) =>
    t.call<Box>('POST', `/boxes/${hostname}/power`, { token: user.token, body: { on } });
  const boxRow = async (id: string) =>
    (await t.db.query('select * from boxes where id = $1', [id])).rows[0] as
      Record<string, unknown> | undefined;

  async function withBox(options: { sshPublicKey?: string } = {}) {
    const user = await t.account();
    const res = await t.call<Box>('POST', '/boxes', { token: user.token, body: options });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return { user, box: res.body };
  }

  async function running(user: TestAccount): Promise<Box> {
    return waitFor(
      () => my(user),
      (b) => b?.status === 'RUNNING',
      { what: 'the box to run' },
    ) as Promise<Box>;
  }

  describe('GET /boxes/my and POST /boxes', () => {
    it('answers null for a player without a box', async () => {
      const user = await t.account();
      const res = await t.call('GET', '/boxes/my', { token: user.token });
      expect(res.status).to.equal(200);
      expect(res.body).to.equal(null);
    });

    it('creates a stopped box named after the handle, with every field of the contract', async () => {
      const user = await t.account('Neo_Trinity');
      const res = await t.call<Box>('POST', '/boxes', { token: user.token, body: {} });
      expect(res.status).to.equal(201);
      const box = boxSchema.strict().parse(res.body);
      expect(box).to.deep.include({
        hostname: 'neo-trinity-box',
        ip: null,
        status: 'STOPPED',
        accumulatedUsageSeconds: 0,
        lastPoweredAt: null,
        openPorts: {},
        owner: { id: user.id, handle: 'Neo_Trinity' },
        dailyRemainingSeconds: 60 * 60,
        statusReason: null,
        unavailableReason: null,
      });
      expect(box.ssh_password).to.match(/^[A-Za-z0-9_-]{16}$/);
      expect(box.vpnClients.map((c) => [c.protocol, c.isConnected])).to.deep.equal([
        ['UDP', false],
        ['TCP', false],
      ]);
      // The loop may have learnt the box's address meanwhile (the runtime gives one per slot).
      expect({ ...(await my(user)), ip: null }).to.deep.equal(box);
      // The root password is stored sealed, not as written.
      const row = await boxRow(box.id);
      expect(row?.ssh_password_enc).to.be.a('string').and.not.include(box.ssh_password);
      expect(row?.desired_power).to.equal(false);
      // The loop may already tell the runtime about it, but only ever to keep it off.
      expect(t.orchestrator.appliedTo(box.id).every((s) => !s.power)).to.equal(true);
    });

    it('gives a new box a balanced loadout of the catalogue and tells its owner the services, never the weaknesses', async () => {
      const { user, box } = await withBox();
      const catalogue = loadCatalogue();
      const row = await boxRow(box.id);
      const loadout = row?.loadout as string[];
      const entries = loadout.map((id) => catalogue.find((e) => e.id === id)!);
      expect(entries.filter((e) => e.kind === 'in')).to.have.length(DEFAULT_LOADOUT_SIZE.in);
      expect(entries.filter((e) => e.kind === 'up')).to.have.length(DEFAULT_LOADOUT_SIZE.up);
      // The owner is told the box's sshd and each published service of the loadout, by port.
      expect(box.services).to.deep.equal(publishedServices(catalogue, loadout));
      expect(box.services.map((s) => s.port)).to.include(22);
      for (const e of entries.filter((e) => e.kind === 'in'))
        for (const s of e.services)
          expect(box.services).to.deep.include({ name: s.name, port: s.port, keeps: s.keeps });
      // Never which entries, nor what is weak in them.
      const answered = JSON.stringify(await my(user));
      for (const e of entries) {
        expect(answered).to.not.include(e.weakness);
        expect(answered).to.not.include(`"${e.id}"`);
      }
      // The runtime is given the loadout with the rest of the box's spec.
      expect((await power(user, box.hostname, true)).status).to.equal(200);
      const spec = await waitFor(
        () => t.orchestrator.appliedTo(box.id).at(-1),
        (s) => s?.power === true,
        { what: 'the spec of the started box' },
      );
      expect(spec?.loadout).to.deep.equal(loadout);
    });

    it('gives a new box the loadout of the runtime’s spare at its slot, never one naming an unknown entry', async () => {
      const catalogue = loadCatalogue();
      const spareLoadout = [
        catalogue.find((e) => e.kind === 'in')!.id,
        catalogue.filter((e) => e.kind === 'up').at(-1)!.id,
      ];
      // The new box's slot is the database's choice: the runtime has a spare at every one.
      const everySlot = (loadout: string[]) => {
        for (let slot = 0; slot < 512; slot++) t.orchestrator.spares.set(slot, loadout);
      };
      try {
        everySlot(spareLoadout);
        const { user, box } = await withBox();
        expect((await boxRow(box.id))?.loadout).to.deep.equal(spareLoadout);
        expect(box.services).to.deep.equal(publishedServices(catalogue, spareLoadout));
        expect((await power(user, box.hostname, true)).status).to.equal(200);
        const spec = await waitFor(
          () => t.orchestrator.appliedTo(box.id).at(-1),
          (s) => s?.power === true,
          { what: 'the spec of the started box' },
        );
        expect(spec?.loadout).to.deep.equal(spareLoadout);
        for (const odd of [
          [...spareLoadout, 'no-such-entry'],
          [spareLoadout[0]!, spareLoadout[0]!],
        ]) {
          everySlot(odd);
          const drawn = (await boxRow((await withBox()).box.id))?.loadout as string[];
          expect(drawn).to.not.deep.equal(odd);
          expect(drawn).to.have.length(DEFAULT_LOADOUT_SIZE.in + DEFAULT_LOADOUT_SIZE.up);
        }
      } finally {
        t.orchestrator.spares.clear();
      }
    });

    it('gives colliding handles distinct hostnames', async () => {
      const n = Date.now().toString(36).slice(-6);
      const first = await t.account(`dup_${n}`);
      const second = await t.account(`dup-${n}`);
      const a = await t.call<Box>('POST', '/boxes', { token: first.token, body: {} });
      const b = await t.call<Box>('POST', '/boxes', { token: second.token, body: {} });
      expect([a.status, b.status]).to.deep.equal([201, 201]);
      expect(a.body.hostname).to.equal(`dup-${n}-box`);
      expect(b.body.hostname).to.equal(`dup-${n}-box-2`);
    });

    it('installs a valid SSH public key and hands it to the runtime with the root password and the owner', async () => {
      const { user, box } = await withBox({ sshPublicKey: `  ${SSH_KEY}  ` });
      expect((await power(user, box.hostname, true)).status).to.equal(200);
      const spec = await waitFor(
        () => t.orchestrator.appliedTo(box.id).find((s) => s.power),
        (s) => s !== undefined,
        { what: 'applyBox with power on' },
      );
      expect(spec).to.deep.include({
        hostname: box.hostname,
        ownerId: user.id,
        ownerHandle: user.handle,
        power: true,
        rootPassword: box.ssh_password,
        sshPublicKey: SSH_KEY,
        resources: { memoryMiB: 512, cpuMillis: 500, pids: 512 },
      });
      expect(spec!.slot).to.be.a('number').and.at.least(0);
      await power(user, box.hostname, false);
    });

    it('refuses a malformed SSH key with a clear message and creates nothing', async () => {
      const user = await t.account();
      for (const sshPublicKey of ['not a key', `${SSH_KEY}\nssh-rsa AAAA second@line`, 'ssh-dss AAAAB3 x']) {
        const res = await t.call<{ message: string }>('POST', '/boxes', {
          token: user.token,
          body: { sshPublicKey },
        });
        expect(res.status).to.equal(400);
        expect(res.body.message).to.equal(
          'sshPublicKey: SSH public key must be one line in OpenSSH format, e.g. "ssh-ed25519 AAAA... you@host".',
        );
      }
      expect(await my(user)).to.equal(null);
      const rows = await t.db.query('select 1 from boxes where user_id = $1', [user.id]);
      expect(rows.rowCount).to.equal(0);
    });

    it('refuses unknown body fields', async () => {
      const user = await t.account();
      const res = await t.call<{ message: string }>('POST', '/boxes', {
        token: user.token,
        body: { hostname: 'mine', memory: 4096 },
      });
      expect(res.status).to.equal(400);
      expect(res.body.message).to.match(/Unknown fields in request body: hostname, memory/);
      expect(await my(user)).to.equal(null);
    });

    it('gives boxes created at the same moment distinct slots without renaming them', async () => {
      const players = await Promise.all(Array.from({ length: 10 }, () => t.account()));
      const answers = await Promise.all(
        players.map((p) => t.call<Box>('POST', '/boxes', { token: p.token, body: {} })),
      );
      expect(answers.map((a) => a.status)).to.deep.equal(players.map(() => 201));
      expect(answers.map((a) => a.body.hostname)).to.deep.equal(
        players.map((p) => `${p.handle.toLowerCase().replace(/_/g, '-')}-box`),
      );
      const { rows } = await t.db.query<{ slot: number }>('select slot from boxes where id = any($1)', [
        answers.map((a) => a.body.id),
      ]);
      expect(new Set(rows.map((r) => r.slot)).size).to.equal(10);
      // The loop tells the runtime which slots are taken (it prepares disks for the next ones).
      await t.platform.boxes.tick(); // (maybe a pass that began before the creations)
      await t.platform.boxes.tick();
      const used = t.orchestrator.spareRequests.at(-1) ?? [];
      expect(used).to.include.members(rows.map((r) => r.slot));
    });

    it('allows one box per player, also when two creations race', async () => {
      const racer = await t.account();
      const both = await Promise.all(
        [1, 2].map(() => t.call('POST', '/boxes', { token: racer.token, body: {} })),
      );
      expect(both.map((a) => a.status).sort()).to.deep.equal([201, 409]);
      const { rowCount } = await t.db.query('select 1 from boxes where user_id = $1', [racer.id]);
      expect(rowCount).to.equal(1);
      const { user, box } = await withBox();
      const again = await t.call<{ message: string }>('POST', '/boxes', { token: user.token, body: {} });
      expect(again.status).to.equal(409);
      expect(again.body.message).to.equal(BOX_MESSAGES.alreadyHaveBox);
      expect((await my(user))?.id).to.equal(box.id);
    });
  });

  describe('power and the convergence loop', () => {
    it('starts a box: PROVISIONING at once, RUNNING through the loop, with the runtime’s address and ports', async () => {
      const { user, box } = await withBox();
      const before = Date.now();
      const on = await power(user, box.hostname, true);
      expect(on.status).to.equal(200);
      boxSchema.strict().parse(on.body);
      expect(on.body.status).to.equal('PROVISIONING');
      expect(new Date(on.body.lastPoweredAt!).getTime()).to.be.within(before - 1000, Date.now() + 1000);
      expect((await boxRow(box.id))?.desired_power).to.equal(true);
      const up = await running(user);
      expect(up.ip).to.equal(t.orchestrator.boxAddress(t.orchestrator.appliedTo(box.id)[0]!.slot));
      expect(up.statusReason).to.equal(null);
      t.orchestrator.setOpenPorts(box.id, { '22': 'ssh', '8080': 'http' });
      await waitFor(
        () => my(user),
        (b) => Object.keys(b?.openPorts ?? {}).length === 2,
        { what: 'open ports' },
      );
      // A second power-on keeps the first power-on time.
      const again = await power(user, box.hostname, true);
      expect(again.body.lastPoweredAt).to.equal(on.body.lastPoweredAt);
      expect(again.body.status).to.equal('RUNNING');
    });

    it('stays PROVISIONING while the runtime boots, and runs once the runtime says so', async () => {
      t.orchestrator.boot = 'manual';
      const { user, box } = await withBox();
      await power(user, box.hostname, true);
      await waitFor(
        () => t.orchestrator.appliedTo(box.id).length,
        (n) => n >= 3,
        { what: 'a few loop passes' },
      );
      const booting = await my(user);
      expect(booting?.status).to.equal('PROVISIONING');
      expect(booting?.statusReason).to.equal('Booting');
      // No box time while booting.
      expect((await boxRow(box.id))?.session_started_at).to.equal(null);
      t.orchestrator.finishBoot(box.id);
      await running(user);
    });

    it('stops a box: desired power off, STOPPED after the loop, the session ended', async () => {
      const { user, box } = await withBox();
      await power(user, box.hostname, true);
      await running(user);
      const off = await power(user, box.hostname, false);
      expect(off.status).to.equal(200);
      expect((await boxRow(box.id))?.desired_power).to.equal(false);
      const stopped = await waitFor(
        () => my(user),
        (b) => b?.status === 'STOPPED',
        { what: 'STOPPED' },
      );
      expect(stopped?.statusReason).to.equal(null);
      expect(t.orchestrator.machine(box.id)?.state).to.equal('stopped');
      expect(t.orchestrator.appliedTo(box.id).at(-1)?.power).to.equal(false);
      const row = await boxRow(box.id);
      expect(row).to.include({
        session_started_at: null,
        usage_counted_until: null,
        session_charged_minutes: 0,
      });
    });

    it('refuses to power on when the runtime cannot run boxes, and says why on the box', async () => {
      const { user, box } = await withBox();
      t.orchestrator.unavailableReason = 'This host has no systemd-nspawn.';
      const runtime = await t.call('GET', '/boxes/runtime', { token: user.token });
      expect(runtime.status).to.equal(200);
      expect(runtime.body).to.deep.equal({
        available: false,
        reason: 'This host has no systemd-nspawn.',
        image: { state: 'ready', percent: 100, step: null },
      });
      const on = await power(user, box.hostname, true);
      expect(on.status).to.equal(503);
      expect((on.body as unknown as { message: string }).message).to.equal(
        'This host has no systemd-nspawn.',
      );
      expect((await my(user))?.unavailableReason).to.equal('This host has no systemd-nspawn.');
      expect((await boxRow(box.id))?.desired_power).to.equal(false);
    });

    it('GET /boxes/runtime reports the runtime and its image build', async () => {
      const user = await t.account();
      t.orchestrator.image = { state: 'building', percent: 42, step: 'debootstrap' };
      try {
        const res = await t.call('GET', '/boxes/runtime', { token: user.token });
        expect(res.status).to.equal(200);
        expect(res.body).to.deep.equal({
          available: true,
          reason: null,
          image: { state: 'building', percent: 42, step: 'debootstrap' },
        });
      } finally {
        t.orchestrator.image = { state: 'ready', percent: 100, step: null };
      }
    });

    it('shows a crash as CRASHED with power off, keeps it so, and starts again on power on', async () => {
      const { user, box } = await withBox();
      await power(user, box.hostname, true);
      await running(user);
      t.orchestrator.crash(box.id, 139);
      const crashed = await waitFor(
        () => my(user),
        (b) => b?.status === 'CRASHED',
        { what: 'CRASHED' },
      );
      expect(crashed?.statusReason).to.equal('The box stopped unexpectedly (exit 139).');
      expect((await boxRow(box.id))?.desired_power).to.equal(false);
      // Later passes tell the runtime to keep it off (clearing the exit), but the box stays CRASHED.
      const calls = t.orchestrator.appliedTo(box.id).length;
      await waitFor(
        () => t.orchestrator.appliedTo(box.id).length,
        (n) => n >= calls + 3,
        { what: 'more loop passes' },
      );
      expect(t.orchestrator.appliedTo(box.id).at(-1)?.power).to.equal(false);
      const still = await my(user);
      expect(still?.status).to.equal('CRASHED');
      expect(still?.statusReason).to.equal('The box stopped unexpectedly (exit 139).');
      expect((await boxRow(box.id))?.session_started_at).to.equal(null);
      const on = await power(user, box.hostname, true);
      expect(on.status).to.equal(200);
      expect(on.body.status).to.equal('PROVISIONING');
      // The crash's reason is gone (the loop, quick here, may already say it boots).
      expect(on.body.statusReason).to.be.oneOf([null, 'Booting']);
      await running(user);
    });

    it('shows a power-off from inside as STOPPED with power off', async () => {
      const { user, box } = await withBox();
      await power(user, box.hostname, true);
      await running(user);
      t.orchestrator.powerOffInside(box.id);
      const stopped = await waitFor(
        () => my(user),
        (b) => b?.status === 'STOPPED',
        { what: 'STOPPED' },
      );
      expect(stopped?.statusReason).to.equal('The box was powered off from inside.');
      expect((await boxRow(box.id))?.desired_power).to.equal(false);
      const calls = t.orchestrator.appliedTo(box.id).length;
      await waitFor(
        () => t.orchestrator.appliedTo(box.id).length,
        (n) => n >= calls + 2,
        { what: 'more loop passes' },
      );
      expect((await my(user))?.status).to.equal('STOPPED');
      expect(t.orchestrator.machine(box.id)?.state).to.equal('stopped');
    });

    it('removes boxes the runtime holds that the database does not know, and only those', async () => {
      const { user, box } = await withBox();
      await power(user, box.hostname, true);
      await running(user);
      const orphan = randomUUID();
      t.orchestrator.addOrphan(orphan);
      await waitFor(() => t.orchestrator.deleted.includes(orphan), Boolean, { what: 'the orphan removed' });
      expect(t.orchestrator.machine(orphan)).to.equal(undefined);
      expect(t.orchestrator.deleted).to.not.include(box.id);
      expect(t.orchestrator.machine(box.id)?.state).to.equal('running');
    });

    it('does not remove a box created while a loop pass is under way', async () => {
      const user = await t.account();
      let created: Box | undefined;
      // The pass has read the boxes it wants; now a box is created and the runtime prepares it.
      t.orchestrator.beforeNextBoxIds = async () => {
        created = (await t.call<Box>('POST', '/boxes', { token: user.token, body: {} })).body;
        await waitFor(
          () => t.orchestrator.machine(created!.id),
          (m) => m !== undefined,
          { what: 'the runtime to hold the new box' },
        );
      };
      await waitFor(
        () => t.orchestrator.beforeNextBoxIds,
        (hook) => hook === null,
        { what: 'a loop pass' },
      );
      await t.platform.boxes.tick();
      await t.platform.boxes.tick();
      expect(created?.hostname).to.be.a('string');
      expect(t.orchestrator.deleted).to.not.include(created!.id);
      expect(t.orchestrator.machine(created!.id)).to.not.equal(undefined);
    });
  });

  describe('DELETE /boxes/{id}', () => {
    it('deletes the box in the database and the runtime', async () => {
      const { user, box } = await withBox();
      await power(user, box.hostname, true);
      await running(user);
      const res = await t.call('DELETE', `/boxes/${box.id}`, { token: user.token });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ deleted: true });
      expect(await my(user)).to.equal(null);
      expect(await boxRow(box.id)).to.equal(undefined);
      await waitFor(() => t.orchestrator.deleted.includes(box.id), Boolean, { what: 'deleteBox' });
      expect(t.orchestrator.machine(box.id)).to.equal(undefined);
      // And a new one can be made afterwards.
      expect((await t.call('POST', '/boxes', { token: user.token, body: {} })).status).to.equal(201);
    });

    it("answers 404 for another player's box and for ids that are no box, deleting nothing", async () => {
      const { user: owner, box } = await withBox();
      const other = await t.account();
      for (const id of [box.id, randomUUID(), 'not-a-uuid']) {
        const res = await t.call<{ message: string }>('DELETE', `/boxes/${id}`, { token: other.token });
        expect(res.status, id).to.equal(404);
        expect(res.body.message).to.equal(BOX_MESSAGES.noBox);
      }
      expect((await my(owner))?.id).to.equal(box.id);
      expect(t.orchestrator.deleted).to.not.include(box.id);
    });

    it("answers 404 to power on another player's hostname and leaves that box alone", async () => {
      const { user: owner, box } = await withBox();
      const other = await t.account();
      await t.call('POST', '/boxes', { token: other.token, body: {} });
      const res = await t.call<{ message: string }>('POST', `/boxes/${box.hostname}/power`, {
        token: other.token,
        body: { on: true },
      });
      expect(res.status).to.equal(404);
      expect(res.body.message).to.equal(BOX_MESSAGES.noBox);
      expect((await boxRow(box.id))?.desired_power).to.equal(false);
      expect((await my(owner))?.status).to.equal('STOPPED');
    });

    it('validates the power body', async () => {
      const { user, box } = await withBox();
      for (const body of [{}, { on: 'yes' }, { on: true, force: true }]) {
        const res = await t.call('POST', `/boxes/${box.hostname}/power`, { token: user.token, body });
        expect(res.status, JSON.stringify(body)).to.equal(400);
      }
      expect((await boxRow(box.id))?.desired_power).to.equal(false);
    });
  });

  describe('POST /boxes/{hostname}/reset', () => {
    it('wipes the box and gives it a new loadout, never the one it had; it powers off and boots the new one', async () => {
      const { user, box } = await withBox();
      await power(user, box.hostname, true);
      await running(user);
      const before = (await boxRow(box.id))?.loadout as string[];
      const deletedBefore = t.orchestrator.deleted.filter((id) => id === box.id).length;
      const res = await t.call<Box>('POST', `/boxes/${box.hostname}/reset`, { token: user.token });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.include({
        id: box.id,
        hostname: box.hostname,
        statusReason: BOX_MESSAGES.reset,
      });
      // Same box, address and password; a new disk and a new set of services.
      expect(res.body.ssh_password).to.equal(box.ssh_password);
      const after = (await boxRow(box.id))?.loadout as string[];
      expect(after).to.have.length(before.length);
      expect([...after].sort()).to.not.deep.equal([...before].sort());
      expect(t.orchestrator.deleted.filter((id) => id === box.id)).to.have.length(deletedBefore + 1);
      expect((await boxRow(box.id))?.desired_power).to.equal(false);
      await waitFor(
        () => my(user),
        (b) => b?.status === 'STOPPED',
        { what: 'the reset box stopped' },
      );
      // Started again, the runtime is given the new loadout.
      expect((await power(user, box.hostname, true)).status).to.equal(200);
      const spec = await waitFor(
        () => t.orchestrator.appliedTo(box.id).at(-1),
        (s) => s?.power === true,
        { what: 'the spec of the restarted box' },
      );
      expect(spec?.loadout).to.deep.equal(after);
    });

    it('keeps the loadout the box has when the runtime cannot remove its disk, and says so', async () => {
      const { user, box } = await withBox();
      const before = (await boxRow(box.id))?.loadout;
      t.orchestrator.failNextDelete = new Error('disk busy');
      const res = await t.call<{ message: string }>('POST', `/boxes/${box.hostname}/reset`, {
        token: user.token,
      });
      expect(res.status).to.equal(503);
      expect(res.body.message).to.equal(BOX_MESSAGES.resetFailed);
      expect((await boxRow(box.id))?.loadout).to.deep.equal(before);
      expect((await boxRow(box.id))?.status_reason).to.equal(null);
      expect(t.orchestrator.deleted).to.not.include(box.id);
    });

    it("answers 404 for another player's hostname and resets nothing", async () => {
      const { user: owner, box } = await withBox();
      const other = await t.account();
      const before = (await boxRow(box.id))?.loadout;
      const res = await t.call<{ message: string }>('POST', `/boxes/${box.hostname}/reset`, {
        token: other.token,
      });
      expect(res.status).to.equal(404);
      expect(res.body.message).to.equal(BOX_MESSAGES.noBox);
      expect((await boxRow(box.id))?.loadout).to.deep.equal(before);
      expect(t.orchestrator.deleted).to.not.include(box.id);
      expect((await my(owner))?.statusReason).to.equal(null);
    });
  });

  describe('signed out', () => {
    const calls: [string, string, unknown?][] = [
      ['GET', '/boxes/my'],
      ['GET', '/boxes/runtime'],
      ['POST', '/boxes', {}],
      ['POST', '/boxes/someone-box/power', { on: true }],
      ['DELETE', `/boxes/${randomUUID()}`],
      ['GET', '/user-vpn/my-clients'],
      ['GET', '/user-vpn/pool-status'],
      ['GET', `/user-vpn/${randomUUID()}/UDP`],
    ];
    for (const [method, path, body] of calls) {
      it(`${method} ${path.replace(/[0-9a-f-]{36}/, '{id}')} answers 401`, async () => {
        const res = await t.call(method, path, { body });
        expect(res.status).to.equal(401);
        const forged = await t.call(method, path, { body, token: 'eyJhbGciOiJIUzI1NiJ9.e30.c2ln' });
        expect(forged.status).to.equal(401);
      });
    }
  });

  describe('VPN', () => {
    const config = (user: TestAccount, protocol: string, userId = user.id) =>
      t.call<VpnConfig & { message: string }>('GET', `/user-vpn/${userId}/${protocol}`, {
        token: user.token,
      });
    const block = (ovpn: string, tag: string) =>
      ovpn.match(new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`))?.[1] ?? null;

    it('lists one client per protocol and follows connects and disconnects', async () => {
      const user = await t.account();
      const before = await t.call<VpnClient[]>('GET', '/user-vpn/my-clients', { token: user.token });
      expect(before.status).to.equal(200);
      expect(before.body).to.deep.equal([
        { protocol: 'UDP', isConnected: false, vpnIp: null, connectedAt: null, realAddress: null },
        { protocol: 'TCP', isConnected: false, vpnIp: null, connectedAt: null, realAddress: null },
      ]);
      const session = await t.orchestrator.connectVpn(user.id, 'TCP', { realAddress: '198.51.100.23' });
      expect(session).to.not.equal(null);
      const during = await t.call<VpnClient[]>('GET', '/user-vpn/my-clients', { token: user.token });
      for (const c of during.body) vpnClientSchema.strict().parse(c);
      expect(during.body[0]).to.deep.equal({
        protocol: 'UDP',
        isConnected: false,
        vpnIp: null,
        connectedAt: null,
        realAddress: null,
      });
      // Where their computer connects from, as the VPN server saw it: theirs to see.
      expect(during.body[1]).to.deep.equal({
        protocol: 'TCP',
        isConnected: true,
        vpnIp: session!.vpnAddress,
        connectedAt: session!.connectedAt.toISOString(),
        realAddress: '198.51.100.23',
      });
      // Another player's sessions are not theirs.
      const other = await t.account();
      const theirs = await t.call<VpnClient[]>('GET', '/user-vpn/my-clients', { token: other.token });
      expect(theirs.body.every((c) => !c.isConnected && c.realAddress === null)).to.equal(true);
      t.orchestrator.disconnectVpn(user.id);
      const after = await t.call<VpnClient[]>('GET', '/user-vpn/my-clients', { token: user.token });
      expect(after.body.every((c) => !c.isConnected)).to.equal(true);
    });

    it('reports pool capacity from VPN_MAX_CLIENTS and VPN_LIMITED_PERCENT', async () => {
      const user = await t.account();
      const players = await Promise.all([1, 2, 3, 4, 5].map(() => t.account()));
      const pool = async () => {
        const res = await t.call('GET', '/user-vpn/pool-status', { token: user.token });
        expect(res.status).to.equal(200);
        return vpnPoolStatusSchema.strict().parse(res.body);
      };
      const level = (c: 'available' | 'limited' | 'full') => ({
        capacity_level: c,
        is_exhausted: c === 'full',
      });
      expect(await pool()).to.deep.equal({ tcp: level('available'), udp: level('available') });
      // 4 clients at most, limited from 50%: 1 available, 2-3 limited, 4 full.
      await t.orchestrator.connectVpn(players[0]!.id, 'UDP');
      expect((await pool()).udp).to.deep.equal(level('available'));
      await t.orchestrator.connectVpn(players[1]!.id, 'UDP');
      expect(await pool()).to.deep.equal({ tcp: level('available'), udp: level('limited') });
      await t.orchestrator.connectVpn(players[2]!.id, 'UDP');
      expect((await pool()).udp).to.deep.equal(level('limited'));
      await t.orchestrator.connectVpn(players[3]!.id, 'UDP');
      expect(await pool()).to.deep.equal({ tcp: level('available'), udp: level('full') });
      // A full server admits nobody else; TCP is counted apart.
      expect(await t.orchestrator.connectVpn(players[4]!.id, 'UDP')).to.equal(null);
      await t.orchestrator.connectVpn(players[4]!.id, 'TCP');
      expect((await pool()).tcp).to.deep.equal(level('available'));
      t.orchestrator.disconnectVpn(players[0]!.id);
      expect((await pool()).udp).to.deep.equal(level('limited'));
    });

    it('issues one identity per player and renders UDP and TCP configs with everything inline', async () => {
      const user = await t.account();
      const issuedBefore = t.orchestrator.issued.length;
      const udp = await config(user, 'UDP');
      expect(udp.status).to.equal(200);
      expect(udp.body.protocol).to.equal('UDP');
      const ovpn = udp.body.ovpn_config;
      expect(ovpn)
        .to.include('\nclient\n')
        .and.include('\nproto udp\n')
        .and.include('\nremote vpn.grid.test 11940\n');
      expect(ovpn).to.include(`for ${user.handle}`);
      expect(block(ovpn, 'ca')).to.equal(t.orchestrator.caCertificatePem.trim());
      expect(block(ovpn, 'tls-crypt')).to.equal(t.orchestrator.tlsCryptKey.trim());
      const certPem = block(ovpn, 'cert')!;
      const keyPem = block(ovpn, 'key')!;
      expect(certPem).to.match(/^-----BEGIN CERTIFICATE-----/);
      expect(keyPem).to.match(/^-----BEGIN PRIVATE KEY-----/);
      // The certificate names the player and was signed by the VPN's CA.
      const cert = new x509.X509Certificate(certPem);
      expect(cert.subject).to.equal(`CN=${user.id}`);
      expect(
        await cert.verify({ publicKey: new x509.X509Certificate(t.orchestrator.caCertificatePem).publicKey }),
      ).to.equal(true);
      expect(t.orchestrator.issued.length).to.equal(issuedBefore + 1);

      const tcp = await config(user, 'TCP');
      expect(tcp.status).to.equal(200);
      expect(tcp.body.protocol).to.equal('TCP');
      expect(tcp.body.ovpn_config)
        .to.include('\nproto tcp-client\n')
        .and.include('\nremote vpn.grid.test 11941\n');
      expect(block(tcp.body.ovpn_config, 'cert')).to.equal(certPem);
      expect(block(tcp.body.ovpn_config, 'key')).to.equal(keyPem);
      const again = await config(user, 'UDP');
      expect(block(again.body.ovpn_config, 'cert')).to.equal(certPem);
      expect(t.orchestrator.issued.length, 'no second identity').to.equal(issuedBefore + 1);

      // Stored: the certificate and its serial as issued, the private key sealed.
      const { rows } = await t.db.query('select * from vpn_identities where user_id = $1', [user.id]);
      expect(rows).to.have.length(1);
      expect(rows[0].certificate_pem.trim()).to.equal(certPem);
      expect(rows[0].serial_number).to.equal(t.orchestrator.issued.at(-1)!.serialNumber);
      expect(rows[0].private_key_enc).to.match(/^[A-Za-z0-9_-]+$/);
      expect(rows[0].private_key_enc).to.not.include('PRIVATE KEY');
      expect(rows[0].private_key_enc).to.not.include(keyPem.split('\n')[1]);
    });

    it('issues a single identity when the first downloads race', async () => {
      const user = await t.account();
      const answers = await Promise.all([config(user, 'UDP'), config(user, 'TCP'), config(user, 'UDP')]);
      const certs = answers.map((a) => block(a.body.ovpn_config, 'cert'));
      expect(new Set(certs).size).to.equal(1);
      const { rows } = await t.db.query('select serial_number from vpn_identities where user_id = $1', [
        user.id,
      ]);
      expect(rows).to.have.length(1);
    });

    it("refuses a bad protocol, and another player's configuration", async () => {
      const user = await t.account();
      const other = await t.account();
      for (const protocol of ['udp', 'SCTP', 'UDP.ovpn']) {
        const res = await config(user, protocol);
        expect(res.status, protocol).to.equal(400);
      }
      const theirs = await config(user, 'UDP', other.id);
      expect(theirs.status).to.equal(403);
      expect(theirs.body.message).to.equal(BOX_MESSAGES.notYourVpn);
      const { rowCount } = await t.db.query('select 1 from vpn_identities where user_id = $1', [other.id]);
      expect(rowCount).to.equal(0);
    });

    it('answers 503 for a config while the runtime is unavailable', async () => {
      const user = await t.account();
      t.orchestrator.unavailableReason = 'VPN servers are down for maintenance.';
      const res = await config(user, 'UDP');
      expect(res.status).to.equal(503);
      expect(res.body.message).to.equal('VPN servers are down for maintenance.');
    });

    it('revokes for good: CRL with the serial, sessions cut, downloads and client list refused, authorizer says no', async () => {
      const user = await t.account();
      const bystander = await t.account();
      expect((await config(user, 'UDP')).status).to.equal(200);
      const serial = t.orchestrator.issued.at(-1)!.serialNumber;
      expect(await t.orchestrator.authorize(user.id)).to.equal(true);
      await t.orchestrator.connectVpn(user.id, 'UDP');
      await t.orchestrator.connectVpn(bystander.id, 'UDP');

      await t.platform.vpn.revoke(user.id);

      const list = t.orchestrator.revocations.at(-1)!;
      expect(list.find((r) => r.userId === user.id)).to.deep.include({ serialNumber: serial });
      expect(list.find((r) => r.userId === bystander.id)).to.equal(undefined);
      expect(t.orchestrator.vpnSessions().map((s) => s.userId)).to.deep.equal([bystander.id]);
      for (const protocol of ['UDP', 'TCP']) {
        const res = await config(user, protocol);
        expect(res.status).to.equal(403);
        expect(res.body.message).to.equal('VPN access has been revoked');
      }
      const clients = await t.call<{ message: string }>('GET', '/user-vpn/my-clients', { token: user.token });
      expect(clients.status).to.equal(403);
      expect(clients.body.message).to.equal('VPN access has been revoked');
      expect(await t.orchestrator.authorize(user.id)).to.equal(false);
      expect(await t.orchestrator.authorize(bystander.id)).to.equal(true);
      expect(await t.orchestrator.authorize('not-a-user-id')).to.equal(false);
      expect(await t.orchestrator.authorize(randomUUID())).to.equal(false);
      expect(await t.orchestrator.connectVpn(user.id, 'TCP')).to.equal(null);
      // Revoking twice changes nothing.
      await t.platform.vpn.revoke(user.id);
      expect(t.orchestrator.revocations.at(-1)!.filter((r) => r.userId === user.id)).to.have.length(1);
      expect((await config(bystander, 'UDP')).status).to.equal(200);
    });

    it('refuses a player revoked before ever downloading a configuration', async () => {
      const user = await t.account();
      await t.platform.vpn.revoke(user.id);
      const res = await config(user, 'TCP');
      expect(res.status).to.equal(403);
      expect(res.body.message).to.equal(BOX_MESSAGES.vpnRevoked);
      const { rowCount } = await t.db.query('select 1 from vpn_identities where user_id = $1', [user.id]);
      expect(rowCount).to.equal(0);
      expect(await t.orchestrator.authorize(user.id)).to.equal(false);
    });
  });

  describe('/vpn-status socket', () => {
    const sockets: Socket[] = [];
    afterEach(() => {
      for (const socket of sockets.splice(0)) socket.close();
    });

    interface Heard {
      socket: Socket;
      status: { status: boolean }[];
      updates: BoxUpdatePayload[];
    }

    async function listen(user: TestAccount): Promise<Heard> {
      const socket = connect(`${t.platform.baseUrl}${VPN_STATUS_NAMESPACE}`, {
        transports: ['websocket'],
        auth: { token: user.token },
        query: { userId: user.id },
        reconnection: false,
        timeout: 5000,
      });
      sockets.push(socket);
      const heard: Heard = { socket, status: [], updates: [] };
      socket.on('status', (payload: { status: boolean }) => heard.status.push(payload));
      socket.on('boxUpdate', (payload: BoxUpdatePayload) => heard.updates.push(payload));
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', () => resolve());
        socket.once('connect_error', reject);
      });
      return heard;
    }

    it('answers requestStatus, pushes VPN changes and box updates to the owner only', async () => {
      const { user: alice, box } = await withBox();
      const bob = await t.account();
      const a = await listen(alice);
      const b = await listen(bob);

      a.socket.emit('requestStatus');
      await waitFor(
        () => a.status.length + a.updates.length,
        (n) => n >= 2,
        { what: 'the answer to requestStatus' },
      );
      expect(a.status).to.deep.equal([{ status: false }]);
      expect(a.updates).to.have.length(1);
      expect(Object.keys(a.updates[0]!).sort()).to.deep.equal(SPEC_BOX_UPDATE_KEYS);
      expect(a.updates[0]).to.deep.include({ id: box.id, hostname: box.hostname, status: 'STOPPED' });
      // Bob's socket works (he gets his own answer, and no box update: he has no box).
      b.socket.emit('requestStatus');
      await waitFor(
        () => b.status.length,
        (n) => n === 1,
        { what: "bob's status" },
      );
      expect(b.status).to.deep.equal([{ status: false }]);

      const session = await t.orchestrator.connectVpn(alice.id, 'UDP');
      await waitFor(
        () => a.status.length,
        (n) => n === 2,
        { what: 'status pushed on connect' },
      );
      expect(a.status[1]).to.deep.equal({ status: true });
      const withClient = await waitFor(
        () => a.updates.at(-1),
        (u) => u?.vpnClients.some((c) => c.isConnected) === true,
        { what: 'boxUpdate with the VPN client' },
      );
      expect(withClient!.vpnClients[0]).to.deep.include({
        protocol: 'UDP',
        isConnected: true,
        vpnIp: session!.vpnAddress,
      });

      const seen = a.updates.length;
      await power(alice, box.hostname, true);
      const up = await waitFor(
        () => a.updates.slice(seen),
        (u) => u.some((x) => x.status === 'RUNNING'),
        { what: 'boxUpdate RUNNING' },
      );
      expect(up[0]?.status).to.equal('PROVISIONING');
      const runningUpdate = up.find((x) => x.status === 'RUNNING')!;
      expect(Object.keys(runningUpdate).sort()).to.deep.equal(SPEC_BOX_UPDATE_KEYS);
      expect(runningUpdate.vpnIp).to.equal(
        t.orchestrator.boxAddress(t.orchestrator.appliedTo(box.id)[0]!.slot),
      );
      expect(runningUpdate.lastPoweredAt).to.be.a('string');
      expect(runningUpdate.dailyRemainingSeconds).to.be.a('number');

      t.orchestrator.disconnectVpn(alice.id);
      await waitFor(
        () => a.status.length,
        (n) => n === 3,
        { what: 'status pushed on disconnect' },
      );
      expect(a.status[2]).to.deep.equal({ status: false });

      await power(alice, box.hostname, false);
      await waitFor(
        () => a.updates.at(-1)?.status,
        (s) => s === 'STOPPED',
        { what: 'boxUpdate STOPPED' },
      );
      await t.call('DELETE', `/boxes/${box.id}`, { token: alice.token });
      const gone = await waitFor(
        () => a.updates.at(-1),
        (u) => u?.deleted === true,
        { what: 'boxUpdate deleted' },
      );
      expect(gone?.id).to.equal(box.id);

      // Bob heard only the answer to his own request.
      expect(b.status).to.deep.equal([{ status: false }]);
      expect(b.updates).to.deep.equal([]);
    });
  });
});
