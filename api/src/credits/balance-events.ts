import { EventEmitter } from 'node:events';
import type { BalancePayload } from '../contracts/index.ts';
import type { Balances } from './ledger.ts';

export interface BalanceEventMap {
  /** A user's balances changed (a purchase credited, a gift, a refund, box time): sent to their sockets. */
  balance: [userId: string, payload: BalancePayload];
}

/**
 * Where services say that a balance changed, so the player's sidebar and pages follow without a reload
 * (`balance` on /grid, wired in grid/socket.ts). A ledger row carries the balances after it.
 */
export class BalanceEvents extends EventEmitter<BalanceEventMap> {
  publish(userId: string, after: Balances): void {
    this.emit('balance', userId, {
      credits: after.creditsCents / 100,
      freeCredits: after.freeCreditsCents / 100,
    });
  }
}
