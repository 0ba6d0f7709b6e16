// No import cycles between the API's feature folders (make lint): `api/src/<folder>/` imports another folder's
// modules only where that folder does not import it back, directly or around a loop. Type-only imports count:
// they tie the folders' designs together as much. Tests are left out.
//
// KNOWN lists cycles that are still there, to be taken apart; a new one fails, and so does a known one that is
// gone (take it off the list). Files directly in api/src (server.ts, orchestrator-factory.ts, ...) compose the
// folders and are no folder's.
//
//   node hack/check-import-cycles.ts
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const src = path.resolve(import.meta.dirname, '../api/src');
const KNOWN: string[][] = [];

/** Folder → the folders its modules import. */
const graph = new Map<string, Set<string>>();
for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
  const file = path.join(entry.parentPath, entry.name);
  const from = path.relative(src, file).split(path.sep);
  if (from.length < 2) continue;
  for (const match of readFileSync(file, 'utf8').matchAll(/\bfrom '(\.{1,2}\/[^']+)'/g)) {
    const to = path.relative(src, path.resolve(path.dirname(file), match[1]!)).split(path.sep);
    if (to.length < 2 || to[0] === '..' || to[0] === from[0]) continue;
    if (!graph.has(from[0]!)) graph.set(from[0]!, new Set());
    graph.get(from[0]!)!.add(to[0]!);
  }
}

/** Strongly connected components of more than one folder (Tarjan). */
function cycles(): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return found;
}

const key = (folders: string[]) => folders.join(' ↔ ');
const now = cycles().map(key);
const known = KNOWN.map((folders) => key([...folders].sort()));
const added = now.filter((cycle) => !known.includes(cycle));
const gone = known.filter((cycle) => !now.includes(cycle));
if (added.length || gone.length) {
  for (const cycle of added)
    console.error(`check-import-cycles: a new import cycle between api/src folders: ${cycle}`);
  for (const cycle of gone)
    console.error(`check-import-cycles: no longer a cycle, take it off KNOWN: ${cycle}`);
  process.exit(1);
}
console.log(
  known.length
    ? `check-import-cycles: no new import cycle between api/src folders (${known.length} known, to go)`
    : 'check-import-cycles: no import cycle between api/src folders',
);
