import { randomInt } from 'node:crypto';
import type { CatalogueEntry } from './catalogue.ts';

/** How many ways in and ways up a box gets (BOX_LOADOUT_IN, BOX_LOADOUT_UP). */
export interface LoadoutSize {
  in: number;
  up: number;
}

export const DEFAULT_LOADOUT_SIZE: LoadoutSize = { in: 3, up: 2 };

/** Random whole numbers below `max` (crypto's by default; the tests pass a seeded one). */
export type RandomInt = (max: number) => number;

/** Draws per choice: enough that a balanced loadout different from the previous one is found when one exists. */
const ATTEMPTS = 200;

/**
 * A box's loadout: `size.in` ways in and `size.up` ways up, drawn at random and balanced by
 * difficulty (docs/catalogue.md):
 * - at least one way in of difficulty 1 (a new player's box always has an easy door to find
 *   and fix), and, with 3 or more ways in, one of difficulty 2 or 3;
 * - ways in from at least two categories when the size allows (not three web apps);
 * - the total difficulty within one of the average for that many entries;
 * - never the same set as `previous` (a reset gives a fresh loadout) when another exists; when none does,
 *   the same set again.
 * Answers entry ids, ways in first.
 */
export function chooseLoadout(
  catalogue: CatalogueEntry[],
  size: LoadoutSize = DEFAULT_LOADOUT_SIZE,
  options: { previous?: string[]; random?: RandomInt } = {},
): string[] {
  const random = options.random ?? randomInt;
  const ways = { in: catalogue.filter((e) => e.kind === 'in'), up: catalogue.filter((e) => e.kind === 'up') };
  for (const kind of ['in', 'up'] as const) {
    if (!Number.isInteger(size[kind]) || size[kind] < 0)
      throw new RangeError(`the loadout's ways ${kind} must be a whole number, not ${size[kind]}`);
    if (size[kind] > ways[kind].length)
      throw new RangeError(
        `the loadout asks for ${size[kind]} ways ${kind}; the catalogue has ${ways[kind].length}`,
      );
  }
  const previous = new Set(options.previous ?? []);
  const average = (list: CatalogueEntry[]) => list.reduce((sum, e) => sum + e.difficulty, 0) / list.length;
  const target = size.in * average(ways.in) + (size.up ? size.up * average(ways.up) : 0);

  let fallback: string[] | null = null;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const chosen = [...sample(ways.in, size.in, random), ...sample(ways.up, size.up, random)];
    const waysIn = chosen.filter((e) => e.kind === 'in');
    const total = chosen.reduce((sum, e) => sum + e.difficulty, 0);
    const balanced =
      (size.in === 0 || waysIn.some((e) => e.difficulty === 1) || !ways.in.some((e) => e.difficulty === 1)) &&
      (size.in < 3 || waysIn.some((e) => e.difficulty > 1)) &&
      (size.in < 2 || new Set(waysIn.map((e) => e.category)).size > 1) &&
      Math.abs(total - target) <= 1;
    const ids = chosen.map((e) => e.id);
    // An empty loadout (sizes 0 and 0) is never a repeat: there is nothing to vary.
    const repeated = ids.length > 0 && ids.length === previous.size && ids.every((id) => previous.has(id));
    if (balanced && !repeated) return ids;
    if (!repeated) fallback ??= ids;
  }
  // A catalogue too small to balance (tests, a staff-made one): still a loadout, still not the last one.
  if (fallback) return fallback;
  // The only loadout of this size there is: the same again (a reset still gets a fresh disk).
  const again = [...previous];
  if (again.length === size.in + size.up) return again;
  throw new RangeError('the catalogue has no loadout of this size');
}

/** `count` distinct entries of `list`, in random order (a partial Fisher–Yates shuffle). */
function sample<T>(list: T[], count: number, random: RandomInt): T[] {
  const copy = [...list];
  for (let i = 0; i < count; i++) {
    const j = i + random(copy.length - i);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, count);
}
