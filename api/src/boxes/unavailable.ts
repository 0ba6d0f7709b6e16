import { EventEmitter } from 'node:events';
import type { VpnProtocol } from '../contracts/boxes.ts';
import type {
  BoxObservation,
  BoxOrchestrator,
  BoxSpec,
  OrchestratorEvents,
  OrchestratorStatus,
  VpnIdentity,
  VpnSession,
} from './orchestrator.ts';

/**
 * The orchestrator of a platform that runs no boxes (`ORCHESTRATOR=none`, or a host that
 * cannot): boxes can be created and show plainly why they cannot start. Nothing pretends.
 */
export class UnavailableOrchestrator implements BoxOrchestrator {
  readonly name = 'none';
  readonly events = new EventEmitter<OrchestratorEvents>();
  readonly #reason: string;

  constructor(reason: string) {
    this.#reason = reason;
  }

  async start(): Promise<void> {}
  /** No boxes, no agents. */
  async serveAgents(): Promise<() => Promise<void>> {
    return async () => undefined;
  }
  status(): OrchestratorStatus {
    return { available: false, reason: this.#reason, image: { state: 'missing', percent: 0, step: null } };
  }
  async applyBox(spec: BoxSpec): Promise<BoxObservation> {
    return { phase: spec.power ? 'PROVISIONING' : 'STOPPED', ip: null, openPorts: {}, reason: this.#reason };
  }
  async deleteBox(): Promise<void> {}
  async boxIds(): Promise<string[]> {
    return [];
  }
  issueVpnIdentity(): Promise<VpnIdentity> {
    return Promise.reject(new Error(this.#reason));
  }
  vpnClientConfig(_protocol: VpnProtocol): string {
    throw new Error(this.#reason);
  }
  async setRevoked(): Promise<void> {}
  setVpnAuthorizer(): void {}
  vpnSessions(): VpnSession[] {
    return [];
  }
  poolUsage(): Record<VpnProtocol, { clients: number; maxClients: number }> {
    return { UDP: { clients: 0, maxClients: 0 }, TCP: { clients: 0, maxClients: 0 } };
  }
  async openAttackWindow(): Promise<void> {}
  async closeAttackWindow(): Promise<void> {}
  async close(): Promise<void> {}
}
