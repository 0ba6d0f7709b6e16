import {
  attackSchema,
  matchProposalSchema,
  type Attack,
  type MatchProposal,
} from '@exploit-grid/api/contracts';
import { reaction } from 'mobx';
import { z } from 'zod';
import { log } from '../logging.ts';
import type { RootStore } from './RootStore.ts';

/**
 * What a reload keeps of the Grid, per operator, in one record: the active attack (GridStore) and the match
 * proposal (MatchmakingStore). Each store saves its own part; the other stays as it was saved for the same
 * operator, so the record is the one an earlier version wrote whole.
 */
const GRID_STORAGE_KEY = 'exploit-grid.grid';
const GRID_STORAGE_VERSION = 1;
const persistedGrid = z.object({
  version: z.literal(GRID_STORAGE_VERSION),
  userId: z.string(),
  activeAttack: z.unknown().nullable(),
  matchmakingProposal: z.unknown().nullable(),
});

export type SavedGrid = { activeAttack: Attack | null; matchmakingProposal: MatchProposal | null };

/** What was saved for this operator: nothing of another's; null for a part that fails its contract now. */
export function loadSavedGrid(storage: Storage, userId: string): SavedGrid {
  const nothing: SavedGrid = { activeAttack: null, matchmakingProposal: null };
  let stored: unknown;
  try {
    stored = JSON.parse(storage.getItem(GRID_STORAGE_KEY) ?? 'null');
  } catch {
    return nothing;
  }
  const parsed = persistedGrid.safeParse(stored);
  if (!parsed.success || parsed.data.userId !== userId) return nothing;
  const attack = attackSchema.safeParse(parsed.data.activeAttack);
  const proposal = matchProposalSchema.safeParse(parsed.data.matchmakingProposal);
  return {
    activeAttack: attack.success ? attack.data : null,
    matchmakingProposal: proposal.success ? proposal.data : null,
  };
}

/** Saves one part of this operator's record; a failure (storage full or refused) is only logged. */
export function saveGridPart(storage: Storage, userId: string, part: Partial<SavedGrid>): void {
  try {
    storage.setItem(
      GRID_STORAGE_KEY,
      JSON.stringify({
        version: GRID_STORAGE_VERSION,
        userId,
        ...loadSavedGrid(storage, userId),
        ...part,
      }),
    );
  } catch (error) {
    log.warn('Could not save the grid state', error);
  }
}

/**
 * Keeps a store's part of the record for the operator signed in: whenever the account changes (and at once),
 * the store forgets the previous account (`reset`) and gets back what the new one left (`restore`); every
 * change of `read()` is saved.
 */
export function keepGridPart<K extends keyof SavedGrid>(
  root: RootStore,
  storage: Storage,
  part: K,
  store: { read: () => SavedGrid[K]; reset: () => void; restore: (saved: SavedGrid[K]) => void },
): void {
  const userId = () => root.auth.user?.id ?? null;
  reaction(
    userId,
    (id) => {
      store.reset();
      if (id) store.restore(loadSavedGrid(storage, id)[part]);
    },
    { fireImmediately: true },
  );
  reaction(store.read, (value) => {
    const id = userId();
    if (id) saveGridPart(storage, id, { [part]: value });
  });
}
