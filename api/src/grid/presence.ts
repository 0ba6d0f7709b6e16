import { EventEmitter } from 'node:events';
import type { GridPlayer } from '../contracts/index.ts';
import type { Geo } from './geo.ts';

interface Entry {
  sockets: number;
  player: GridPlayer;
  /** The profile's country and the address last seen, to place the player again when either changes. */
  profileCountry: string | null;
  address: string | null;
  offlineTimer: NodeJS.Timeout | null;
  /** Logged out: when the last socket closes, offline at once (no grace period). */
  loggedOut: boolean;
}

export interface PresenceEvents {
  /** Came online, or changed (MMR, location): for everyone. */
  playerUpdated: [GridPlayer];
  /** Gone: the last socket closed and the grace period passed without a new one. */
  playerOffline: [string];
}

export interface PresenceOptions {
  geo: Geo;
  /** How long a player stays online after their last socket closed (a reload, a network blip). */
  graceMs: number;
}

/** What presence needs to know about a user when their first socket arrives. */
export interface PresenceUser {
  id: string;
  handle: string;
  mmr: number;
  country: string | null;
}

/**
 * Who is on the grid (docs/grid.md "Presence"): a player is online while any of their /grid sockets is
 * connected, and for a grace period after the last one closed. Counted in this process's memory: one
 * API replica serves the grid (docs/grid.md says what several replicas would need).
 */
export class Presence {
  readonly events = new EventEmitter<PresenceEvents>();
  readonly #entries = new Map<string, Entry>();
  readonly #o: PresenceOptions;

  constructor(options: PresenceOptions) {
    this.#o = options;
  }

  /** A socket of `user` connected from `address`. */
  connected(user: PresenceUser, address: string | null): void {
    const existing = this.#entries.get(user.id);
    if (existing) {
      existing.sockets += 1;
      existing.loggedOut = false;
      if (existing.offlineTimer) {
        clearTimeout(existing.offlineTimer);
        existing.offlineTimer = null;
      }
      // The newest socket's address places the player (they may have moved networks).
      if (address !== existing.address || user.country !== existing.profileCountry) {
        existing.address = address;
        existing.profileCountry = user.country;
        this.#place(existing, user);
      }
      return;
    }
    const entry: Entry = {
      sockets: 1,
      profileCountry: user.country,
      address,
      offlineTimer: null,
      loggedOut: false,
      player: {
        id: user.id,
        handle: user.handle,
        mmr: user.mmr,
        ...this.#o.geo.locate(user.country, address),
      },
    };
    this.#entries.set(user.id, entry);
    this.events.emit('playerUpdated', entry.player);
  }

  /** A socket of the user closed; the last one starts the grace period. */
  disconnected(userId: string): void {
    const entry = this.#entries.get(userId);
    if (!entry) return;
    entry.sockets = Math.max(0, entry.sockets - 1);
    if (entry.sockets > 0 || entry.offlineTimer) return;
    if (entry.loggedOut) {
      this.#goOffline(userId);
      return;
    }
    entry.offlineTimer = setTimeout(() => this.#goOffline(userId), this.#o.graceMs);
    entry.offlineTimer.unref();
  }

  /** The user logged out on a socket: offline as soon as no socket is left, without the grace period. */
  loggedOut(userId: string): void {
    const entry = this.#entries.get(userId);
    if (!entry) return;
    entry.loggedOut = true;
    if (entry.sockets === 0) this.#goOffline(userId);
  }

  /** MMR or handle changed (after an attack): everyone sees the new values. */
  update(user: PresenceUser): void {
    const entry = this.#entries.get(user.id);
    if (!entry) return;
    if (
      entry.player.mmr === user.mmr &&
      entry.player.handle === user.handle &&
      entry.profileCountry === user.country
    )
      return;
    entry.profileCountry = user.country;
    this.#place(entry, user);
  }

  isOnline(userId: string): boolean {
    return this.#entries.has(userId);
  }

  player(userId: string): GridPlayer | null {
    return this.#entries.get(userId)?.player ?? null;
  }

  players(): GridPlayer[] {
    return [...this.#entries.values()].map((e) => e.player);
  }

  get size(): number {
    return this.#entries.size;
  }

  close(): void {
    for (const entry of this.#entries.values()) if (entry.offlineTimer) clearTimeout(entry.offlineTimer);
    this.#entries.clear();
  }

  #place(entry: Entry, user: PresenceUser) {
    entry.player = {
      id: user.id,
      handle: user.handle,
      mmr: user.mmr,
      ...this.#o.geo.locate(entry.profileCountry, entry.address),
    };
    this.events.emit('playerUpdated', entry.player);
  }

  #goOffline(userId: string) {
    const entry = this.#entries.get(userId);
    if (!entry) return;
    if (entry.offlineTimer) clearTimeout(entry.offlineTimer);
    this.#entries.delete(userId);
    this.events.emit('playerOffline', userId);
  }
}
