import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * The catalogue of vulnerable services (`operator/catalogue/<id>/`, docs/catalogue.md): what a box
 * can be given to defend. Each entry's directory holds `entry.json` (described by `entrySchema`),
 * `install.sh` (run once in the box, as root, at its first boot), the files it installs, and for
 * staff and the tests only `exploit.sh`, `fix.sh` and `README.md`, which never reach a box.
 */
export const CATALOGUE_DIR = fileURLToPath(new URL('../../catalogue/', import.meta.url));

/** The files of an entry that stay with the platform: a box's owner must not learn the weakness from them. */
export const STAFF_ONLY_FILES = ['entry.json', 'exploit.sh', 'fix.sh', 'README.md'];

/** What an entry id looks like (its directory's name). */
export const CATALOGUE_ID = /^[a-z][a-z0-9-]{1,30}[a-z0-9]$/;

/** How the platform checks, as a client would, that a service still does its job. */
export const checkSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('http'),
    port: z.number().int().min(1).max(65535),
    /** Request path and query; `{nonce}` is replaced by a fresh random word for each check. */
    path: z.string().startsWith('/'),
    method: z.enum(['GET', 'POST']).default('GET'),
    /** A form body (application/x-www-form-urlencoded) for POST; `{nonce}` as in `path`. */
    form: z.record(z.string(), z.string()).optional(),
    status: z.number().int().default(200),
    /** What the answer's body must contain (`{nonce}` as in `path`). */
    contains: z.string().min(1),
  }),
  z.object({
    type: z.literal('tcp'),
    port: z.number().int().min(1).max(65535),
    /** What to send once connected (a datastore's or mail server's own protocol), `{nonce}` as above. */
    send: z.string(),
    /** What the bytes received must contain before the service closes or `timeoutMs` ends. */
    contains: z.string().min(1),
  }),
]);
export type ServiceCheck = z.infer<typeof checkSchema>;

export const entrySchema = z
  .object({
    id: z.string().regex(CATALOGUE_ID),
    title: z.string().min(3).max(60),
    /** `in`: a way into the box from the network (a user shell); `up`: from a user shell to root. */
    kind: z.enum(['in', 'up']),
    category: z.enum(['web', 'network', 'privesc']),
    difficulty: z.number().int().min(1).max(3),
    /** The weakness in one line, for staff (never shown to players). */
    weakness: z.string().min(10),
    /** Debian packages it needs: baked into every box image, enabled only where the entry is installed. */
    packages: z.array(z.string().regex(/^[a-z0-9][a-z0-9+.-]+$/)),
    /** The systemd units it adds, stopped by the tests' 'fix' that unplugs the service. */
    units: z.array(z.string().regex(/^[a-z0-9@.-]+\.(service|timer|socket)$/)),
    /** What the box's owner is told to keep up (on My Box): never the weakness. */
    services: z.array(
      z.object({
        name: z.string().min(2).max(40),
        port: z.number().int().min(1).max(65535),
        keeps: z.string().min(10).max(200),
      }),
    ),
    check: checkSchema.nullable(),
    /** The user a way in gives the attacker (their FOOTHOLD). */
    gives: z
      .string()
      .regex(/^[a-z_][a-z0-9_-]*$/)
      .nullable(),
  })
  .refine((e) => (e.kind === 'in') === (e.gives !== null), {
    message: 'a way in names the user it gives; a way up gives root',
  })
  .refine((e) => (e.check === null) === (e.services.length === 0), {
    message: 'an entry with a published service has a check, and only then',
  })
  .refine((e) => !e.check || e.services.some((s) => s.port === e.check!.port), {
    message: 'the check asks one of the published ports',
  });
export type CatalogueEntry = z.infer<typeof entrySchema>;

let shipped: CatalogueEntry[] | undefined;

/**
 * Every entry of the catalogue, checked (a broken entry is an error, not a smaller catalogue). The shipped
 * catalogue is read once per process (the image recipe, the box service and the target info all ask).
 */
export function loadCatalogue(dir = CATALOGUE_DIR): CatalogueEntry[] {
  if (dir === CATALOGUE_DIR) return (shipped ??= readCatalogue(dir));
  return readCatalogue(dir);
}

function readCatalogue(dir: string): CatalogueEntry[] {
  const entries: CatalogueEntry[] = [];
  for (const name of readdirSync(dir).sort()) {
    const entryDir = path.join(dir, name);
    if (!statSync(entryDir).isDirectory()) continue;
    const parsed = entrySchema.safeParse(JSON.parse(readFileSync(path.join(entryDir, 'entry.json'), 'utf8')));
    if (!parsed.success) throw new Error(`catalogue entry ${name}: ${z.prettifyError(parsed.error)}`);
    if (parsed.data.id !== name) throw new Error(`catalogue entry ${name}: its id is ${parsed.data.id}`);
    for (const file of ['install.sh', 'exploit.sh', 'fix.sh', 'README.md'])
      if (!existsSync(path.join(entryDir, file))) throw new Error(`catalogue entry ${name}: no ${file}`);
    entries.push(parsed.data);
  }
  return entries;
}

/** The union of every entry's packages (the box image holds them all, so no box needs a network to install). */
export function cataloguePackages(entries: CatalogueEntry[]): string[] {
  return [...new Set(entries.flatMap((e) => e.packages))].sort();
}

/** Every unit the catalogue adds or its packages enable: disabled in the image, enabled by an entry's install. */
export function catalogueUnits(entries: CatalogueEntry[]): string[] {
  return [...new Set(entries.flatMap((e) => e.units))].sort();
}

/**
 * The files a box gets for an entry (path relative to the entry's directory → content): its install
 * script and what it installs, never the staff-only files.
 */
export function installFiles(id: string, dir = CATALOGUE_DIR): Map<string, Buffer> {
  if (!CATALOGUE_ID.test(id)) throw new Error(`not a catalogue entry id: ${id}`);
  const files = new Map<string, Buffer>();
  const walk = (sub: string) => {
    for (const entry of readdirSync(path.join(dir, id, sub), { withFileTypes: true })) {
      const relative = path.join(sub, entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (!(sub === '' && STAFF_ONLY_FILES.includes(entry.name)))
        files.set(relative, readFileSync(path.join(dir, id, relative)));
    }
  };
  walk('');
  return files;
}

/** A service a box publishes: what its owner must keep up, and what attackers are told of it. */
export interface PublishedService {
  name: string;
  port: number;
  keeps: string;
}

/**
 * Every box with a loadout runs its own sshd: it is listed whatever the loadout, so that seeing it tells
 * nobody that an entry on port 22 (weak-ssh) was drawn. Entries on port 22 publish exactly this.
 */
export const BOX_SSH_SERVICE: PublishedService = {
  name: 'SSH',
  port: 22,
  keeps: "Lets the box's users log in over ssh (you included).",
};

/**
 * The services a box with loadout `ids` publishes, one per port, by port: its sshd and its entries' services.
 * Ids the catalogue no longer has are skipped. None for a box without a loadout (made before loadouts).
 */
export function publishedServices(catalogue: CatalogueEntry[], ids: readonly string[]): PublishedService[] {
  if (ids.length === 0) return [];
  const byPort = new Map<number, PublishedService>([[BOX_SSH_SERVICE.port, BOX_SSH_SERVICE]]);
  for (const id of ids)
    for (const { name, port, keeps } of catalogue.find((e) => e.id === id)?.services ?? [])
      if (!byPort.has(port)) byPort.set(port, { name, port, keeps });
  return [...byPort.values()].sort((a, b) => a.port - b.port);
}

/** How every box's sshd is checked: it greets a client with its version line, as ssh clients need. */
export const BOX_SSH_CHECK: ServiceCheck = { type: 'tcp', port: 22, send: '', contains: 'SSH-2.0-' };

/** A published service and how the platform checks it (see `publishedServices`). */
export interface CheckedService {
  name: string;
  port: number;
  check: ServiceCheck;
}

/**
 * What the platform checks on a box with loadout `ids` during an attack: every service it publishes, each
 * with its entry's check (sshd with `BOX_SSH_CHECK`), by port. None for a box without a loadout.
 */
export function checkedServices(catalogue: CatalogueEntry[], ids: readonly string[]): CheckedService[] {
  const checks = new Map<number, ServiceCheck>([[BOX_SSH_SERVICE.port, BOX_SSH_CHECK]]);
  for (const id of ids) {
    const check = catalogue.find((e) => e.id === id)?.check;
    if (check && !checks.has(check.port)) checks.set(check.port, check);
  }
  return publishedServices(catalogue, ids).flatMap(({ name, port }) => {
    const check = checks.get(port);
    return check ? [{ name, port, check }] : [];
  });
}
