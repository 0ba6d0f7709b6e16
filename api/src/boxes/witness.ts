import { EventEmitter } from 'node:events';

/**
 * What the platform's own routers saw of the attack windows' TCP flows (the Kubernetes
 * runtime's VPN servers; docs/detection.md, "Virtual machines"). An in-box agent's word that a
 * peer got a shell counts only on a flow the routers carried, and an agent that hides a flow
 * the box still talks on gives itself away.
 */
export interface RouterWitness {
  readonly events: EventEmitter<{ report: [] }>;
  /** Flows between VPN clients and the box at `boxAddress` that routers reported. */
  flows(boxAddress: string): WitnessedFlow[];
}

export interface WitnessedFlow {
  /** The VPN client's end. */
  client: string;
  clientPort: number;
  boxPort: number;
  /** When it became established (epoch ms, this process's clock; the routers tell it to the second). */
  openedAt: number;
  /**
   * When the box last sent on it (epoch ms), as of the routers' last report; null once the box
   * has not for 15 s, or the flow ended (a FIN or RST from the box).
   */
  lastActiveAt: number | null;
}

/** One flow as a router reports it: ages in seconds, counted by its kernel. */
export interface ReportedFlow {
  client: string;
  clientPort: number;
  box: string;
  boxPort: number;
  openedSecondsAgo: number;
  idleSeconds: number | null;
}

/** Flows are remembered this long after they opened (longer than any attack window). */
const KEEP_MS = 2 * 60 * 60 * 1000;
/**
 * Flows remembered at most (a router holds 262,144, and lets a player complete 20 handshakes a
 * second; reports only add a few at a time).
 */
const MAX_FLOWS = 500_000;
/** A flow told again with an opening this much later is a new connection on the same ports. */
const REUSED_AFTER_MS = 5000;

/** A flow by its four ends (what `ignore` takes). */
export interface CheckFlow {
  box: string;
  client: string;
  clientPort: number;
  boxPort: number;
}

const ignoredKey = (f: CheckFlow) => `${f.box}|${f.client}:${f.clientPort}>${f.boxPort}`;

interface Entry extends WitnessedFlow {
  server: string;
}

/**
 * The routers' reports, kept by box address. Each router reports its whole list every few
 * seconds; a router forgets a flow two minutes after it opened, this record keeps it for the
 * attacks that need it. Whether the box still talks on a flow is what the router said last.
 */
export class FlowRecord implements RouterWitness {
  readonly events = new EventEmitter<{ report: [] }>();
  readonly #byBox = new Map<string, Map<string, Entry>>();
  /** `box|client:clientPort>boxPort` of the platform's service checks → until when they are kept out. */
  readonly #ignored = new Map<string, number>();
  #size = 0;
  readonly #maxFlows: number;

  constructor(options: { maxFlows?: number } = {}) {
    this.#maxFlows = options.maxFlows ?? MAX_FLOWS;
  }

  flows(boxAddress: string): WitnessedFlow[] {
    const flows = this.#byBox.get(boxAddress);
    if (!flows) return [];
    return [...flows.values()].map(({ server: _server, ...flow }) => ({ ...flow }));
  }

  /** The ports `client` was seen using with port `boxPort` of the box at `boxAddress` (no copies of the flows). */
  clientPorts(boxAddress: string, client: string, boxPort: number): Set<number> {
    const ports = new Set<number>();
    for (const flow of this.#byBox.get(boxAddress)?.values() ?? [])
      if (flow.client === client && flow.boxPort === boxPort) ports.add(flow.clientPort);
    return ports;
  }

  /**
   * A flow that is the platform's own service check (made from the attacker's address, docs/game-rules.md)
   * for the next `forMs`: never one of the attacker's, whatever a router says of it meanwhile.
   */
  ignore(flow: CheckFlow, forMs: number, now = Date.now()): void {
    const key = ignoredKey(flow);
    this.#ignored.delete(key);
    this.#ignored.set(key, now + forMs);
    // Oldest first (a Map keeps insertion order): those past their time, then any beyond the cap.
    for (const [ignored, until] of this.#ignored) {
      if (until > now && this.#ignored.size <= this.#maxFlows) break;
      this.#ignored.delete(ignored);
    }
  }

  /** A flow ignored by mistake (the attacker's own after all): reports of it count again. */
  unignore(flow: CheckFlow): void {
    this.#ignored.delete(ignoredKey(flow));
  }

  /** A router's whole list, as it stands at `now` (epoch ms). */
  report(server: string, reported: ReportedFlow[], now = Date.now()): void {
    const seen = new Set<string>();
    for (const r of reported) {
      const key = `${r.client}:${r.clientPort}>${r.boxPort}`;
      if ((this.#ignored.get(`${r.box}|${key}`) ?? 0) > now) continue; // a check's
      seen.add(`${r.box}|${key}`);
      let flows = this.#byBox.get(r.box);
      if (!flows) this.#byBox.set(r.box, (flows = new Map()));
      const openedAt = now - r.openedSecondsAgo * 1000;
      const lastActiveAt = r.idleSeconds === null ? null : now - r.idleSeconds * 1000;
      const known = flows.get(key);
      if (known && openedAt < known.openedAt + REUSED_AFTER_MS) {
        // The same flow: its opening as first told (a later report rounds it again).
        known.server = server;
        known.lastActiveAt = lastActiveAt;
        continue;
      }
      if (!known) this.#size++;
      flows.set(key, {
        server,
        client: r.client,
        clientPort: r.clientPort,
        boxPort: r.boxPort,
        openedAt,
        lastActiveAt,
      });
    }
    // What this router no longer lists is not active (it ended, or the router let go of it).
    for (const [box, flows] of this.#byBox)
      for (const [key, entry] of flows) {
        if (entry.server === server && !seen.has(`${box}|${key}`)) entry.lastActiveAt = null;
        if (entry.openedAt < now - KEEP_MS) this.#delete(box, key);
      }
    this.#trim();
    this.events.emit('report');
  }

  #delete(box: string, key: string): void {
    const flows = this.#byBox.get(box);
    if (!flows?.delete(key)) return;
    this.#size--;
    if (flows.size === 0) this.#byBox.delete(box);
  }

  /**
   * When there are too many flows, those of the clients holding the most go (each one's oldest
   * first), down to a level that leaves the rest alone: a player churning connections must not
   * push out the few flows of another's attack.
   */
  #trim(): void {
    let excess = this.#size - this.#maxFlows;
    if (excess <= 0) return;
    const byClient = new Map<string, { box: string; key: string; openedAt: number }[]>();
    for (const [box, flows] of this.#byBox)
      for (const [key, entry] of flows) {
        let list = byClient.get(entry.client);
        if (!list) byClient.set(entry.client, (list = []));
        list.push({ box, key, openedAt: entry.openedAt });
      }
    // The highest level every client may keep with the total under the cap.
    const counts = [...byClient.values()].map((l) => l.length);
    const over = (level: number) => counts.reduce((sum, n) => sum + Math.max(0, n - level), 0);
    let low = 0;
    let high = Math.max(...counts);
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (over(mid) >= excess) low = mid;
      else high = mid - 1;
    }
    for (const list of byClient.values()) {
      if (list.length <= low || excess <= 0) continue;
      list.sort((a, b) => a.openedAt - b.openedAt);
      for (const { box, key } of list.slice(0, Math.min(list.length - low, excess))) {
        this.#delete(box, key);
        excess--;
      }
    }
  }
}
