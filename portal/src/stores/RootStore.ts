import { UiStore } from './UiStore.ts';

/** Creates every store once; domain stores (auth, box, grid, chat, ...) join as features land. */
export class RootStore {
  readonly ui: UiStore;

  constructor() {
    this.ui = new UiStore();
  }
}
