import { beforeEach, describe, expect, it } from 'vitest';
import { acid, gridAttack, matchProposal, me } from '../testing/grid.ts';
import { loadSavedGrid, saveGridPart } from './gridStorage.ts';

const KEY = 'exploit-grid.grid';

beforeEach(() => localStorage.clear());

describe('the saved grid record', () => {
  it('reads the record as earlier versions wrote it whole, and saving one part keeps the other', () => {
    const activeAttack = gridAttack(me, acid);
    const matchmakingProposal = matchProposal();
    localStorage.setItem(
      KEY,
      JSON.stringify({ version: 1, userId: me.id, activeAttack, matchmakingProposal }),
    );
    expect(loadSavedGrid(localStorage, me.id)).toEqual({ activeAttack, matchmakingProposal });

    saveGridPart(localStorage, me.id, { activeAttack: null });
    expect(JSON.parse(localStorage.getItem(KEY) ?? 'null')).toEqual({
      version: 1,
      userId: me.id,
      activeAttack: null,
      matchmakingProposal,
    });
  });

  it("starts another operator's record afresh, and gives them nothing of the previous one", () => {
    saveGridPart(localStorage, me.id, { matchmakingProposal: matchProposal() });
    expect(loadSavedGrid(localStorage, acid.id)).toEqual({ activeAttack: null, matchmakingProposal: null });
    const activeAttack = gridAttack(acid, me);
    saveGridPart(localStorage, acid.id, { activeAttack });
    expect(JSON.parse(localStorage.getItem(KEY) ?? 'null')).toEqual({
      version: 1,
      userId: acid.id,
      activeAttack,
      matchmakingProposal: null,
    });
  });

  it('reads nothing from another version or a broken record, and null for a part that fails its contract', () => {
    const nothing = { activeAttack: null, matchmakingProposal: null };
    localStorage.setItem(KEY, '{not json');
    expect(loadSavedGrid(localStorage, me.id)).toEqual(nothing);
    localStorage.setItem(
      KEY,
      JSON.stringify({
        version: 2,
        userId: me.id,
        activeAttack: gridAttack(me, acid),
        matchmakingProposal: null,
      }),
    );
    expect(loadSavedGrid(localStorage, me.id)).toEqual(nothing);
    const matchmakingProposal = matchProposal();
    localStorage.setItem(
      KEY,
      JSON.stringify({ version: 1, userId: me.id, activeAttack: { id: 'no attack' }, matchmakingProposal }),
    );
    expect(loadSavedGrid(localStorage, me.id)).toEqual({ activeAttack: null, matchmakingProposal });
  });
});
