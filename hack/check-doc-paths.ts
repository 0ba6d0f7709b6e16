// Every path of this repository that the docs name exists (make lint): README.md, docs/*.md and the
// READMEs of the top-level folders. A path is a backticked word or a relative link that starts with a
// top-level folder (`api/src/app.ts`, `[boxes](boxes.md)`); names with placeholders (`<id>`, `*`, `{a,b}`,
// `$VAR`) are patterns, not paths, and are left out. Line numbers after a colon are allowed.
//
//   node hack/check-doc-paths.ts
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const TOP = [
  'api',
  'portal',
  'operator',
  'crds',
  'charts',
  'hack',
  'test',
  'docs',
  'images',
  '.ci',
  '.github',
];

const documents = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
  ...TOP.map((dir) => `${dir}/README.md`).filter((file) => existsSync(path.join(root, file))),
];

const missing: string[] = [];
for (const document of documents) {
  const text = readFileSync(path.join(root, document), 'utf8');
  const named = new Set<string>();
  for (const match of text.matchAll(/`([^`\s]+)`/g)) named.add(match[1]!);
  for (const match of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g))
    if (!/^[a-z]+:/.test(match[1]!)) named.add(path.posix.join(path.posix.dirname(document), match[1]!));
  for (const name of named) {
    const candidate = name.replace(/[:,.;]+$/, '').replace(/:\d+(?:-\d+)?$/, '');
    if (!TOP.some((top) => candidate.startsWith(`${top}/`)) || /[<>*{}$]/.test(candidate)) continue;
    if (!existsSync(path.join(root, candidate))) missing.push(`${document}: ${candidate}`);
  }
}
if (missing.length) {
  console.error(`Paths the docs name that do not exist:\n  ${missing.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-doc-paths: every path named in ${documents.length} documents exists`);
