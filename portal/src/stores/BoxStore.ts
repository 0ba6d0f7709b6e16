import {
  BOX_MESSAGES,
  boxRuntimeSchema,
  boxSchema,
  deleteBoxResponse,
  vpnClientSchema,
  vpnConfigSchema,
  vpnPoolStatusSchema,
  type Box,
  type BoxRuntime,
  type BoxUpdatePayload,
  type CreateBoxRequest,
  type VpnClient,
  type VpnPoolStatus,
  type VpnProtocol,
} from '@exploit-grid/api/contracts';
import { action, computed, makeObservable, observable, observableRef, reaction, runInAction } from 'mobx';
import { z } from 'zod';
import { serverMessageOf } from '../api/ApiError.ts';
import { log } from '../logging.ts';
import { toast } from '../notifications/toast.ts';
import {
  BOX_UNAVAILABLE,
  CREATE_BOX_FAILED,
  DELETE_BOX_FAILED,
  RESET_BOX_FAILED,
  FETCH_BOX_FAILED,
  START_BOX_FAILED,
  STOP_BOX_FAILED,
  vpnConfigFailed,
  vpnConfigFileName,
} from '../strings/box.ts';
import type { RootStore } from './RootStore.ts';

export type BoxLoadStatus = 'idle' | 'loading' | 'ready' | 'failed';
/** Calls that can be under way at once, each with its own pending flag. */
export type BoxAction = 'create' | 'start' | 'stop' | 'reset' | 'delete' | VpnProtocol;
/** An error shown inline: the spec's text, and the server's message when it adds something. */
export type BoxError = { message: string; detail?: string };

/** Polling period of GET /boxes/runtime while the base image builds or the box provisions. */
export const RUNTIME_POLL_MS = 2000;
/** How often My Box asks again while the runtime is not available (starting, or down for now). */
export const RUNTIME_DOWN_POLL_MS = 5000;
/** Period of the daily countdown. */
export const CLOCK_TICK_MS = 1000;

/** Saves text as a file the browser downloads; tests and other platforms may pass their own. */
export type FileSaver = (fileName: string, text: string) => void;

const myBoxAnswer = boxSchema.nullable();
/** At most this often a box update reloads the user (balances) unless the status changed. */
const USER_REFRESH_MS = 20_000;
const myClientsAnswer = z.array(vpnClientSchema);

/**
 * The operator's box and VPN access (core-app sections 2 "My Box", 3, 4, 7, 8). The box itself is the one
 * the session persists (`auth.box`): this store writes it, so the saved session, the other tabs and logout
 * follow without a second copy. Live changes arrive as `boxUpdate` on the /vpn-status socket; the VPN
 * connected flag is that socket's `status` (RealtimeStore).
 */
export class BoxStore {
  loadStatus: BoxLoadStatus = 'idle';
  runtime: BoxRuntime | null = null;
  poolStatus: VpnPoolStatus | null = null;
  myClients: readonly VpnClient[] = [];
  /** The API answered 'VPN access has been revoked': no config can be downloaded any more. */
  revoked = false;
  /** Error of the box section (loading and box actions). */
  boxError: BoxError | null = null;
  /** Error of the VPN section (config downloads). */
  vpnError: BoxError | null = null;
  readonly pending = observable.map<BoxAction, true>();
  /** Now, for the daily countdown (moved on by the page's clock). */
  clock = Date.now();
  /** `dailyRemainingSeconds` of the last box update and when it arrived. */
  private dailyAnchor: { seconds: number; at: number } | null = null;

  private readonly root: RootStore;
  #userRefreshedAt = 0;
  private readonly saveFile: FileSaver;
  private loading: Promise<void> | null = null;
  /** Bumped by every change of the box, so that an answer overtaken by a newer change is not applied. */
  private revision = 0;

  constructor(root: RootStore, saveFile: FileSaver = saveTextFile) {
    this.root = root;
    this.saveFile = saveFile;
    makeObservable<this, 'dailyAnchor' | 'setBox' | 'fail' | 'reset'>(this, {
      loadStatus: observable,
      runtime: observableRef,
      poolStatus: observableRef,
      myClients: observableRef,
      revoked: observable,
      boxError: observableRef,
      vpnError: observableRef,
      clock: observable,
      dailyAnchor: observableRef,
      box: computed,
      vpnConnected: computed,
      dailyLimited: computed,
      dailyRemainingSeconds: computed,
      dailyLimitReached: computed,
      unavailableReason: computed,
      shouldPollRuntime: computed,
      runtimePollMs: computed,
      applyUpdate: action,
      tick: action,
      clearBoxError: action,
      clearVpnError: action,
      replaceBox: action,
      setBox: action,
      fail: action,
      reset: action,
    });
    // The anchor of the countdown moves with every new box (a load, an action, a socket update, another tab).
    reaction(
      () => this.root.auth.box,
      (box) => this.anchorDaily(box),
      { fireImmediately: true },
    );
    // Another account (or none): nothing of the previous one stays.
    reaction(
      () => this.root.auth.user?.id ?? null,
      () => this.reset(),
    );
  }

  /** The box as last seen; null when the operator has none (or before it is known). */
  get box(): Box | null {
    return this.root.auth.box;
  }

  /** A VPN client of this operator is connected (the /vpn-status socket's `status`). */
  get vpnConnected(): boolean {
    return this.root.realtime.vpnConnected;
  }

  isPending(action: BoxAction): boolean {
    return this.pending.has(action);
  }

  /** BASIC operators have a daily box time (the countdown); other tiers none. */
  get dailyLimited(): boolean {
    return this.root.auth.user?.subscription.tier === 'BASIC' && this.dailyAnchor !== null;
  }

  /** Box time left today, counting down while the box runs; null without a daily limit. */
  get dailyRemainingSeconds(): number | null {
    if (!this.dailyLimited || this.dailyAnchor === null) return null;
    return remainingDailySeconds(this.dailyAnchor, this.box?.status ?? null, this.clock);
  }

  get dailyLimitReached(): boolean {
    return this.dailyRemainingSeconds === 0;
  }

  /** Why boxes cannot be created or started here (the box's reason, else the runtime's), or null. */
  get unavailableReason(): string | null {
    if (this.box?.unavailableReason) return this.box.unavailableReason;
    if (this.runtime && !this.runtime.available) return this.runtime.reason ?? BOX_UNAVAILABLE;
    return null;
  }

  /**
   * The base image is building or the box is provisioning (progress comes from GET /boxes/runtime), or the
   * runtime is not available (still starting, or down for now): the page follows it until it is.
   */
  get shouldPollRuntime(): boolean {
    return (
      this.runtime?.image.state === 'building' ||
      this.box?.status === 'PROVISIONING' ||
      (this.runtime !== null && !this.runtime.available)
    );
  }

  /** Progress every 2 s; a runtime that is down, less often. */
  get runtimePollMs(): number {
    return this.runtime?.image.state === 'building' || this.box?.status === 'PROVISIONING'
      ? RUNTIME_POLL_MS
      : RUNTIME_DOWN_POLL_MS;
  }

  /** Everything My Box shows: the box, the runtime, the VPN pools and this operator's VPN clients. */
  async loadPage(): Promise<void> {
    await Promise.all([this.load(), this.loadRuntime(), this.loadPoolStatus(), this.loadMyClients()]);
  }

  /**
   * GET /boxes/my (a Box, or null without one). Concurrent calls share one request; an answer overtaken by a
   * newer change of the box (an action, a socket update) is dropped.
   */
  load(): Promise<void> {
    this.loading ??= this.fetchBox().finally(() => (this.loading = null));
    return this.loading;
  }

  private async fetchBox(): Promise<void> {
    const revision = this.revision;
    runInAction(() => {
      this.loadStatus = 'loading';
      if (this.boxError?.message === FETCH_BOX_FAILED) this.boxError = null;
    });
    try {
      const box = await this.root.api.get('/boxes/my', myBoxAnswer);
      runInAction(() => {
        if (this.revision === revision) this.setBox(box);
        this.loadStatus = 'ready';
      });
    } catch (error) {
      log.warn('Could not load the box', error);
      runInAction(() => {
        this.noteRevoked(error);
        this.loadStatus = 'failed';
        this.boxError = { message: FETCH_BOX_FAILED, ...detailOf(error, FETCH_BOX_FAILED) };
      });
    }
  }

  /** GET /boxes/runtime; on failure the last answer stays (none: boxes are taken to be available). */
  async loadRuntime(): Promise<void> {
    try {
      const runtime = await this.root.api.get('/boxes/runtime', boxRuntimeSchema);
      runInAction(() => (this.runtime = runtime));
    } catch (error) {
      log.warn('Could not load the box runtime', error);
    }
  }

  /** GET /user-vpn/pool-status; on failure the capacity shows as unknown. */
  async loadPoolStatus(): Promise<void> {
    try {
      const status = await this.root.api.get('/user-vpn/pool-status', vpnPoolStatusSchema);
      runInAction(() => (this.poolStatus = status));
    } catch (error) {
      log.warn('Could not load the VPN pool status', error);
      runInAction(() => this.noteRevoked(error));
    }
  }

  /** GET /user-vpn/my-clients. */
  async loadMyClients(): Promise<void> {
    try {
      const clients = await this.root.api.get('/user-vpn/my-clients', myClientsAnswer);
      runInAction(() => (this.myClients = clients));
    } catch (error) {
      log.warn('Could not load the VPN clients', error);
      runInAction(() => this.noteRevoked(error));
    }
  }

  /** POST /boxes, with the optional SSH public key; answers the new box. */
  create(request: CreateBoxRequest = {}): Promise<boolean> {
    return this.run('create', CREATE_BOX_FAILED, async () => {
      const box = await this.root.api.post('/boxes', boxSchema, { body: request });
      runInAction(() => this.setBox(box));
    });
  }

  start(): Promise<boolean> {
    if (this.dailyLimitReached) return Promise.resolve(false);
    return this.power(true);
  }

  stop(): Promise<boolean> {
    return this.power(false);
  }

  /** POST /boxes/{hostname}/power {on}; answers the box. */
  private power(on: boolean): Promise<boolean> {
    const box = this.box;
    if (!box) return Promise.resolve(false);
    return this.run(on ? 'start' : 'stop', on ? START_BOX_FAILED : STOP_BOX_FAILED, async () => {
      const path = `/boxes/${encodeURIComponent(box.hostname)}/power`;
      const updated = await this.root.api.post(path, boxSchema, { body: { on } });
      runInAction(() => this.setBox(updated));
    });
  }

  /** POST /boxes/{hostname}/reset: a wiped disk and a new loadout; answers the box, powered off (the page confirms first). */
  resetBox(): Promise<boolean> {
    const box = this.box;
    if (!box) return Promise.resolve(false);
    return this.run('reset', RESET_BOX_FAILED, async () => {
      const updated = await this.root.api.post(`/boxes/${encodeURIComponent(box.hostname)}/reset`, boxSchema);
      runInAction(() => this.setBox(updated));
    });
  }

  /** The box as another call answered it (a snapshot restored). */
  replaceBox(box: Box) {
    this.setBox(box);
  }

  /** DELETE /boxes/{id}: the box is gone for good (the page confirms first). */
  delete(): Promise<boolean> {
    const box = this.box;
    if (!box) return Promise.resolve(false);
    return this.run('delete', DELETE_BOX_FAILED, async () => {
      await this.root.api.request('DELETE', `/boxes/${encodeURIComponent(box.id)}`, deleteBoxResponse);
      runInAction(() => {
        if (this.box?.id === box.id) this.setBox(null);
      });
    });
  }

  /**
   * GET /user-vpn/{userId}/{protocol}, saved as `udp_<handle>.ovpn` / `tcp_<handle>.ovpn`. A failure shows the
   * server's message, else 'Failed to get VPN config for {protocol}.'
   */
  async downloadConfig(protocol: VpnProtocol): Promise<boolean> {
    const user = this.root.auth.user;
    if (!user || this.pending.has(protocol)) return false;
    runInAction(() => {
      this.pending.set(protocol, true);
      this.vpnError = null;
    });
    try {
      const path = `/user-vpn/${encodeURIComponent(user.id)}/${protocol}`;
      const config = await this.root.api.get(path, vpnConfigSchema);
      this.saveFile(vpnConfigFileName(protocol, user.handle), config.ovpn_config);
      return true;
    } catch (error) {
      log.warn(`Could not get the ${protocol} VPN config`, error);
      const message = serverMessageOf(error) ?? vpnConfigFailed(protocol);
      runInAction(() => {
        this.noteRevoked(error);
        this.vpnError = { message };
      });
      toast.error(message);
      return false;
    } finally {
      runInAction(() => this.pending.delete(protocol));
    }
  }

  /**
   * A `boxUpdate` from /vpn-status: its fields are merged into the box (`vpnIp` is the box's address);
   * `deleted` removes it. An update for a box this page does not know (created in another tab, or not
   * loaded yet) loads the box instead.
   */
  applyUpdate(update: BoxUpdatePayload) {
    const box = this.box;
    if (update.deleted) {
      if (box === null || box.id === update.id) this.setBox(null);
      return;
    }
    if (box === null || box.id !== update.id) {
      // After any load under way: its answer may predate this box.
      void (this.loading ?? Promise.resolve()).then(() => this.load());
      return;
    }
    // Box time is charged every minute: the balances in the sidebar follow the box's updates.
    if (update.status !== box.status || Date.now() - this.#userRefreshedAt > USER_REFRESH_MS) {
      this.#userRefreshedAt = Date.now();
      this.root.auth.loadUser().catch((error: unknown) => log.warn('Could not refresh the balances', error));
    }
    this.setBox({
      ...box,
      hostname: update.hostname,
      status: update.status,
      accumulatedUsageSeconds: update.accumulatedUsageSeconds,
      lastPoweredAt: update.lastPoweredAt,
      ip: update.vpnIp,
      vpnClients: update.vpnClients,
      dailyRemainingSeconds: update.dailyRemainingSeconds,
      statusReason: update.statusReason,
      openPorts: update.openPorts,
    });
    this.myClients = update.vpnClients;
  }

  tick(now = Date.now()) {
    this.clock = now;
  }

  /** Moves the countdown on every second while the page shows it; returns the stop function. */
  runClock(): () => void {
    this.tick();
    const timer = setInterval(() => this.tick(), CLOCK_TICK_MS);
    return () => clearInterval(timer);
  }

  /**
   * Polls GET /boxes/runtime every 2 s while the base image builds or the box provisions, every 5 s while the
   * runtime is not available, and stops when none of these holds any more. Returns the function that stops watching (the page calls it on unmount).
   */
  watchRuntime(): () => void {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let fetching = false;
    const schedule = () => {
      timer = setTimeout(() => {
        timer = null;
        fetching = true;
        void this.loadRuntime().finally(() => {
          fetching = false;
          if (!stopped && this.shouldPollRuntime) schedule();
        });
      }, this.runtimePollMs);
    };
    const dispose = reaction(
      () => this.shouldPollRuntime,
      (poll) => {
        if (poll && timer === null && !fetching) schedule();
        if (!poll && timer !== null) {
          clearTimeout(timer);
          timer = null;
        }
      },
      { fireImmediately: true },
    );
    return () => {
      stopped = true;
      dispose();
      if (timer !== null) clearTimeout(timer);
    };
  }

  /**
   * Reads this operator's VPN clients again whenever the VPN connection comes up or goes down (the socket's
   * `status`), so that where the tunnel comes from and its VPN address follow also without a box (whose
   * updates carry them otherwise). Returns the function that stops (the page calls it on unmount).
   */
  watchClients(): () => void {
    return reaction(
      () => this.vpnConnected,
      () => void this.loadMyClients(),
    );
  }

  clearBoxError() {
    this.boxError = null;
  }

  clearVpnError() {
    this.vpnError = null;
  }

  /**
   * One box action: its pending flag, its error text (with the server's message as detail) inline and as a
   * toast. Resolves whether it succeeded; an action already under way is not sent twice.
   */
  private async run(action: BoxAction, failure: string, call: () => Promise<void>): Promise<boolean> {
    if (this.pending.has(action)) return false;
    runInAction(() => {
      this.pending.set(action, true);
      this.boxError = null;
    });
    try {
      await call();
      return true;
    } catch (error) {
      log.warn(failure, error);
      const detail = detailOf(error, failure);
      this.fail(error, { message: failure, ...detail });
      toast.error(detail.detail ? `${failure} ${detail.detail}` : failure);
      return false;
    } finally {
      runInAction(() => this.pending.delete(action));
    }
  }

  private fail(error: unknown, boxError: BoxError) {
    this.noteRevoked(error);
    this.boxError = boxError;
  }

  /** 'VPN access has been revoked' from any box or VPN call: the revoked panel replaces the downloads. */
  private noteRevoked(error: unknown) {
    if (serverMessageOf(error)?.trim() === BOX_MESSAGES.vpnRevoked) this.revoked = true;
  }

  private setBox(box: Box | null) {
    this.revision += 1;
    this.root.auth.setBox(box);
  }

  private anchorDaily(box: Box | null) {
    const seconds = box?.dailyRemainingSeconds ?? null;
    const now = Date.now();
    runInAction(() => {
      this.dailyAnchor = seconds === null ? null : { seconds, at: now };
      this.clock = now;
    });
  }

  private reset() {
    this.loadStatus = 'idle';
    this.runtime = null;
    this.poolStatus = null;
    this.myClients = [];
    this.revoked = false;
    this.boxError = null;
    this.vpnError = null;
    this.pending.clear();
  }
}

/** The server's message as detail of an error text, unless it says nothing more. */
/** The server's message when it says more than the action's own text. */
export function detailOf(error: unknown, text: string): { detail?: string } {
  const message = serverMessageOf(error)?.trim();
  return message && message !== text ? { detail: message } : {};
}

/**
 * Box time left at `now`: the seconds of the last update, less the whole seconds since then while the box
 * runs (the server counts only running time); never below 0.
 */
export function remainingDailySeconds(
  anchor: { seconds: number; at: number },
  status: Box['status'] | null,
  now: number,
): number {
  const elapsed = status === 'RUNNING' ? Math.max(0, Math.floor((now - anchor.at) / 1000)) : 0;
  return Math.max(0, anchor.seconds - elapsed);
}

/** 'mm:ss' under an hour ('59:59', '00:05'), 'h:mm:ss' from an hour on ('1:00:00'). */
export function formatCountdown(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${pad(m)}:${pad(s)}`;
}

/** Accumulated usage: '1h 02m 03s', '5m 00s', '42s'. */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h ${pad(m)}m ${pad(s)}s`;
  if (m > 0) return `${m}m ${pad(s)}s`;
  return `${s}s`;
}

/** A Blob behind a temporary `<a download>`, clicked once and removed. */
export function saveTextFile(fileName: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-openvpn-profile' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.append(link);
  try {
    link.click();
  } finally {
    link.remove();
    // Revoked on the next turn: some browsers read the URL after click() returns.
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
}
