import type { RefreshLocks } from '../stores/AuthStore.ts';

/**
 * Stands in for `navigator.locks` shared by several tabs (stores) of one browser: exclusive locks, granted in
 * the order asked, each held until its callback settles. `granted` lists the names in the order granted.
 */
export function fakeLocks() {
  const tails = new Map<string, Promise<unknown>>();
  const granted: string[] = [];
  const locks: RefreshLocks = {
    request<T>(name: string, callback: LockGrantedCallback<T>): Promise<T> {
      const held = (tails.get(name) ?? Promise.resolve()).then(() => {
        granted.push(name);
        return callback(null);
      });
      tails.set(
        name,
        held.catch(() => undefined),
      );
      return held;
    },
  };
  return { locks, granted };
}
