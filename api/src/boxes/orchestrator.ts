import type { EventEmitter } from 'node:events';
import type { RequestListener } from 'node:http';
import type { CheckResult, ServiceCheck } from '@exploit-grid/operator/catalogue';
import type { BoxStatus } from '../contracts/boxes.ts';
import type { Referee, VerdictSink } from '../referee/host.ts';
import type { VpnEvents, VpnRuntime } from '../vpn/port.ts';
import type { RouterWitness } from './witness.ts';

export type { RevokedIdentity, VpnIdentity, VpnProfile, VpnSession } from '../vpn/port.ts';

/**
 * The BoxOrchestrator port (DESIGN.md): everything the API asks of the machinery that runs
 * boxes and the VPN (the VPN's part, `VpnRuntime`, is in vpn/port.ts). The local adapter does it on this host (systemd-nspawn, OpenVPN,
 * nftables); the Kubernetes adapter writes Box / VpnPool resources for the operator.
 * Calls are level-based: `applyBox` is told the whole desired state of a box each time and
 * answers what it observes, so a restart of either side loses nothing.
 */
export interface BoxOrchestrator extends VpnRuntime {
  readonly name: string;
  readonly events: EventEmitter<OrchestratorEvents>;
  /** Prepares what the runtime needs (network, VPN servers). Never throws for an unusable host: see status(). */
  start(): Promise<void>;
  status(): OrchestratorStatus;
  /** Converges one box to `spec` (idempotent) and answers what it sees now. */
  applyBox(spec: BoxSpec): Promise<BoxObservation>;
  /** Removes a box and everything it had, but its snapshots (a reset keeps them). Idempotent. */
  deleteBox(id: string): Promise<void>;
  /**
   * Optional (snapshots, docs/boxes.md): saves the box's disk as snapshot `snapshotId`, running or not
   * (a running box's file system is frozen while it is read). Answers what it takes on the host; throws
   * BoxHasNoDisk for a box that has none yet.
   */
  snapshotBox?(id: string, snapshotId: string): Promise<{ sizeBytes: number }>;
  /**
   * Replaces the box's disk with snapshot `snapshotId`, stopping the box first when it runs. Throws
   * SnapshotImageGone when the snapshot was taken on a box image the runtime no longer has.
   */
  restoreBox?(id: string, snapshotId: string): Promise<void>;
  /** Removes a snapshot of a box. Idempotent. */
  deleteSnapshot?(id: string, snapshotId: string): Promise<void>;
  /** Ids of the boxes the runtime holds (the API removes those it no longer wants). */
  boxIds(): Promise<string[]>;
  /**
   * Lets the attacker's VPN addresses reach the target box until `until`. Windows live in the
   * runtime's memory (and the kernel's timeouts): after an API restart the owner of the attacks
   * opens the windows of attacks still running again.
   */
  openAttackWindow(attackerUserId: string, targetBoxId: string, until: Date): Promise<void>;
  closeAttackWindow(attackerUserId: string, targetBoxId: string): Promise<void>;
  /**
   * Optional: runs `checks` on a box's services during an attack as the attacker is seen there, from one of
   * the attacker's VPN addresses, so that a defender cannot serve the checks and refuse the attacker
   * (docs/game-rules.md); each waits `timeoutMs` at most. Answers null (nothing checked) while the attacker
   * has no VPN address or no window on the box, or the box is not this runtime's. A runtime without it has
   * no services checked.
   */
  checkServices?(
    attackerUserId: string,
    boxId: string,
    checks: ServiceCheck[],
    timeoutMs: number,
  ): Promise<CheckResult[] | null>;
  /**
   * Serves the box agents' endpoint (`/internal/agent/report`) where the boxes reach it and
   * nowhere else (the local runtime: the host end of its transit link, behind a NAT rule for
   * the boxes' gateway address). Answers the function that stops serving (the platform calls it
   * when it closes; closing the runtime stops it too).
   */
  serveAgents(handler: RequestListener): Promise<() => Promise<void>>;
  /**
   * Optional: the runtime's own referee, which judges attacks on its boxes from outside them
   * (the local runtime, from the host). Without one the box agents' reports are judged.
   */
  referee?(sink: VerdictSink): Referee;
  /**
   * Where boxes run agents (virtual machines): what the platform's routers saw of the attack
   * windows' flows, without which no agent's report counts (docs/detection.md).
   */
  readonly witness?: RouterWitness;
  /**
   * Whether observations of running boxes carry `sshClients` (the local runtime reads them from the box's
   * network namespace). Without it the owner's first ssh login cannot be seen, and the checklist leaves it out.
   */
  readonly seesSshClients?: boolean;
  /** Optional: gets ready for new boxes (the local runtime's warm pool boots spares at the next free slots). */
  prepareSpares?(usedSlots: number[]): void;
  /**
   * Optional: the loadout of the spare a box made now at `slot` would take over at its first start, or null
   * (none there). A new box is given that loadout, so that it starts at once.
   */
  spareLoadout?(slot: number): Promise<string[] | null>;
  /** Lets go of the runtime; boxes and VPN servers keep running for the next start. */
  close(): Promise<void>;
  /**
   * Stops and removes everything this runtime made on the host (tests, `make boxes-down`);
   * with keepDisks the boxes' disks stay for the next start.
   */
  destroy?(options?: { keepDisks?: boolean }): Promise<void>;
}

/** A snapshot cannot be restored: it was taken on a box image the runtime no longer has. */
export class SnapshotImageGone extends Error {}

/** A snapshot cannot be taken: the box has no disk (never started since it was made or reset). */
export class BoxHasNoDisk extends Error {}

export interface OrchestratorEvents extends VpnEvents {
  /** Something about a box changed outside an applyBox call (it booted, crashed, ...). */
  boxChanged: [string];
}

export interface OrchestratorStatus {
  available: boolean;
  reason: string | null;
  image: { state: 'missing' | 'building' | 'ready' | 'failed'; percent: number; step: string | null };
}

export interface BoxResources {
  memoryMiB: number;
  /** Thousandths of a CPU core. */
  cpuMillis: number;
  pids: number;
}

export interface BoxSpec {
  id: string;
  /** Small unique number of the box (names host objects, picks its address and UID range). */
  slot: number;
  hostname: string;
  ownerId: string;
  /** The owner's handle, where the runtime shows who owns a box (the Box resource's owner). */
  ownerHandle?: string;
  power: boolean;
  rootPassword: string;
  sshPublicKey: string | null;
  /** Secret the box's agent reports with (installed in the box on first start). */
  agentToken: string | null;
  /**
   * Ids of the catalogue entries the box is given (docs/catalogue.md), installed at its first boot;
   * empty for boxes made before loadouts.
   */
  loadout: string[];
  resources: BoxResources;
}

export interface BoxObservation {
  /**
   * RUNNING once the box is booted (its init runs; what box time is billed on), whatever listens
   * in it; CRASHED when the box died without being asked to stop.
   */
  phase: BoxStatus;
  ip: string | null;
  /** Listening TCP ports, for display (the box's sshd among them once it is up). */
  openPorts: Record<string, string>;
  /** A person-readable reason for PROVISIONING delays, a crash or a stop from inside. */
  reason: string | null;
  /**
   * Where the runtime sees them (see `seesSshClients`): the peers (IPv4 addresses) of the TCP connections the
   * box holds on its port 22, in any state but listening and half-open. The API tells its owner's first ssh
   * login from them (the dashboard's checklist); nothing else reads them.
   */
  sshClients?: string[];
  /** True when the box powered itself off from inside (the player ran `poweroff`). */
  poweredOffInside?: boolean;
}
