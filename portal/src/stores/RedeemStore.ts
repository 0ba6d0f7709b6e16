import { giftRedeemResponseSchema } from '@exploit-grid/api/contracts';
import { action, computed, makeObservable, observable, reaction, runInAction } from 'mobx';
import { serverMessageOf } from '../api/ApiError.ts';
import { log } from '../logging.ts';
import { toast } from '../notifications/toast.ts';
import { REDEEM_FAILED, redeemed } from '../strings/redeem.ts';
import type { RootStore } from './RootStore.ts';

/**
 * Redeem Gift (commerce-and-content sections 2, 4 'Gift redeem', 7, 8): idle or submitting. POST
 * /gifts/redeem {token}; on success 'Redeemed {n} credits', the field cleared and the user reloaded.
 */
export class RedeemStore {
  token = '';
  busy = false;

  private readonly root: RootStore;

  constructor(root: RootStore) {
    this.root = root;
    makeObservable(this, { token: observable, busy: observable, canRedeem: computed, setToken: action });
    // Another account (or none): a token typed for the previous one does not stay in the field.
    reaction(
      () => this.root.auth.user?.id ?? null,
      () => runInAction(() => (this.token = '')),
    );
  }

  setToken(token: string) {
    this.token = token;
  }

  /** Empty or whitespace only: nothing happens; nor while a redeem is under way. */
  get canRedeem(): boolean {
    return !this.busy && this.token.trim() !== '';
  }

  async redeem(): Promise<void> {
    // Tokens are upper case; the alphabet forgives O/0 and I/1 on the server.
    const token = this.token.trim().toUpperCase();
    if (this.busy || token === '') return;
    runInAction(() => (this.busy = true));
    try {
      const { creditsGranted } = await this.root.api.post('/gifts/redeem', giftRedeemResponseSchema, {
        body: { token },
      });
      runInAction(() => (this.token = ''));
      toast.success(redeemed(creditsGranted));
      await this.root.auth.loadUser().catch((error: unknown) => log.warn('Could not reload the user', error));
    } catch (error) {
      log.warn('Could not redeem a gift token', error);
      toast.error(serverMessageOf(error) ?? REDEEM_FAILED);
    } finally {
      runInAction(() => (this.busy = false));
    }
  }
}
