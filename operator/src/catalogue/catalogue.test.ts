import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  BOX_SSH_CHECK,
  BOX_SSH_SERVICE,
  STAFF_ONLY_FILES,
  checkedServices,
  cataloguePackages,
  installFiles,
  loadCatalogue,
  publishedServices,
  type CatalogueEntry,
} from './catalogue.ts';
import { LOADOUT_DIR, LOADOUT_INSTALLER, loadoutFiles } from './bundle.ts';
import { chooseLoadout, type RandomInt } from './loadout.ts';

/** A seeded generator (mulberry32), so that a failing draw can be replayed. */
function seeded(seed: number): RandomInt {
  let a = seed >>> 0;
  return (max) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * max);
  };
}

function entry(id: string, kind: 'in' | 'up', difficulty: number, category = 'web'): CatalogueEntry {
  return {
    id,
    title: id,
    kind,
    category: (kind === 'up' ? 'privesc' : category) as CatalogueEntry['category'],
    difficulty,
    weakness: 'a weakness for the test',
    packages: [],
    units: [],
    services: [],
    check: null,
    gives: kind === 'in' ? 'www-data' : null,
  };
}

describe('the catalogue of vulnerable services', () => {
  const catalogue = loadCatalogue();

  it('loads every entry with its scripts, ways in naming the user they give', () => {
    expect(catalogue.length).to.be.at.least(4);
    for (const e of catalogue) {
      if (e.kind === 'in') expect(e.gives, e.id).to.be.a('string').and.not.equal('root');
      else expect(e.gives, e.id).to.equal(null);
      if (e.services.length) expect(e.check, e.id).to.not.equal(null);
    }
    expect(cataloguePackages(catalogue)).to.include('python3');
  });

  it('gives a box the install script and its files, never the exploit, the fix or the notes', () => {
    for (const e of catalogue) {
      const files = [...installFiles(e.id).keys()];
      expect(files, e.id).to.include('install.sh');
      for (const secret of STAFF_ONLY_FILES) expect(files, e.id).to.not.include(secret);
    }
    expect(() => installFiles('../etc')).to.throw(/not a catalogue entry id/);
  });

  it("bundles a loadout for a box: each entry's files under its own directory, root's only, and the installer", () => {
    const ids = catalogue.slice(0, 2).map((e) => e.id);
    const files = loadoutFiles(ids);
    ids.forEach((id, i) => {
      // Numbered directories: the entry's name would tell an owner the weakness.
      const mine = files.filter((f) => f.path.startsWith(`${LOADOUT_DIR}/0${i + 1}/`));
      expect(mine.map((f) => f.path)).to.include(`${LOADOUT_DIR}/0${i + 1}/install.sh`);
      expect(mine.map((f) => f.content)).to.deep.equal([...installFiles(id).values()]);
      for (const f of mine) expect(f.mode, f.path).to.equal(0o600);
    });
    for (const f of files) for (const id of ids) expect(f.path).to.not.contain(id);
    const installer = files.find((f) => f.path === LOADOUT_INSTALLER);
    expect(installer?.mode).to.equal(0o755);
    expect(installer?.content.toString()).to.contain(`dir=${LOADOUT_DIR}`);
    expect(files).to.have.length(installFiles(ids[0]!).size + installFiles(ids[1]!).size + 1);
    // No loadout, nothing to install.
    expect(loadoutFiles([])).to.deep.equal([]);
    // An id the catalogue no longer has is left out and reported; the rest still install.
    const missing: string[] = [];
    const kept = loadoutFiles(['no-such-entry', ids[0]!, '../etc'], undefined, (id) => missing.push(id));
    expect(missing).to.deep.equal(['no-such-entry', '../etc']);
    expect(kept.filter((f) => f.path.startsWith(`${LOADOUT_DIR}/01/`))).to.have.length(
      installFiles(ids[0]!).size,
    );
  });

  it("lists every box's sshd, so that port 22 tells nobody an entry there was drawn", () => {
    const ssh = catalogue.filter((e) => e.services.some((s) => s.port === BOX_SSH_SERVICE.port));
    for (const e of ssh) expect(e.services, e.id).to.deep.include(BOX_SSH_SERVICE);
    const other = catalogue.find((e) => e.kind === 'in' && !ssh.includes(e))!;
    const withSsh = publishedServices(catalogue, [ssh[0]!.id, other.id]);
    const without = publishedServices(catalogue, [other.id]);
    // The same list with or without the entry on port 22.
    expect(withSsh).to.deep.equal(without);
    expect(without[0]).to.deep.equal(BOX_SSH_SERVICE);
    expect(publishedServices(catalogue, [])).to.deep.equal([]);
    expect(publishedServices(catalogue, ['retired-entry', other.id])).to.deep.equal(without);
  });

  it('checks every published service of a loadout, sshd included, with its entry’s check', () => {
    const ids = ['ping-tool', 'weak-ssh', 'sudo-find'];
    const checked = checkedServices(catalogue, ids);
    expect(checked.map((c) => [c.name, c.port])).to.deep.equal(
      publishedServices(catalogue, ids).map((s) => [s.name, s.port]),
    );
    expect(checked.find((c) => c.port === 22)!.check).to.deep.equal(BOX_SSH_CHECK);
    expect(checked.find((c) => c.port === 8080)!.check).to.deep.equal(
      catalogue.find((e) => e.id === 'ping-tool')!.check,
    );
    // A box without weak-ssh has its sshd checked all the same; none without a loadout.
    expect(checkedServices(catalogue, ['ping-tool']).map((c) => c.port)).to.deep.equal([22, 8080]);
    expect(checkedServices(catalogue, [])).to.deep.equal([]);
  });

  it('refuses a broken entry rather than shrinking the catalogue', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'catalogue-'));
    mkdirSync(path.join(dir, 'web-thing'));
    const bad = { ...entry('web-thing', 'in', 1), gives: null };
    writeFileSync(path.join(dir, 'web-thing', 'entry.json'), JSON.stringify(bad));
    expect(() => loadCatalogue(dir)).to.throw(/web-thing: .*way in names the user/s);
    writeFileSync(
      path.join(dir, 'web-thing', 'entry.json'),
      JSON.stringify({
        ...entry('web-thing', 'in', 1),
        services: [{ name: 'Web', port: 80, keeps: 'serves its page' }],
      }),
    );
    expect(() => loadCatalogue(dir)).to.throw(/has a check/);
    writeFileSync(path.join(dir, 'web-thing', 'entry.json'), JSON.stringify(entry('web-thing', 'in', 1)));
    expect(() => loadCatalogue(dir)).to.throw(/no install.sh/);
    writeFileSync(path.join(dir, 'web-thing', 'entry.json'), JSON.stringify(entry('other-name', 'in', 1)));
    expect(() => loadCatalogue(dir)).to.throw(/its id is other-name/);
  });
});

describe('a box’s loadout', () => {
  // A catalogue shaped like the real one at full size: 8 ways in over three categories, 8 ways up.
  const full = [
    entry('in-web-1', 'in', 1),
    entry('in-web-2', 'in', 2),
    entry('in-web-3', 'in', 3),
    entry('in-web-2b', 'in', 2),
    entry('in-web-1b', 'in', 1),
    entry('in-net-1', 'in', 1, 'network'),
    entry('in-net-2', 'in', 2, 'network'),
    entry('in-net-3', 'in', 3, 'network'),
    ...[1, 1, 2, 2, 2, 3, 1, 3].map((d, i) => entry(`up-${i}`, 'up', d)),
  ];
  const byId = new Map(full.map((e) => [e.id, e]));

  it('draws 3 ways in and 2 ways up by default, balanced, from more than one category', () => {
    const average = (kind: 'in' | 'up') =>
      full.filter((e) => e.kind === kind).reduce((s, e) => s + e.difficulty, 0) / 8;
    const target = 3 * average('in') + 2 * average('up');
    const seen = new Set<string>();
    for (let seed = 1; seed <= 500; seed++) {
      const ids = chooseLoadout(full, undefined, { random: seeded(seed) });
      const chosen = ids.map((id) => byId.get(id)!);
      expect(new Set(ids).size, `seed ${seed}`).to.equal(5);
      const waysIn = chosen.slice(0, 3);
      expect(waysIn.every((e) => e.kind === 'in') && chosen.slice(3).every((e) => e.kind === 'up')).to.equal(
        true,
      );
      expect(
        waysIn.some((e) => e.difficulty === 1),
        `an easy way in, seed ${seed}`,
      ).to.equal(true);
      expect(
        waysIn.some((e) => e.difficulty > 1),
        `a harder way in, seed ${seed}`,
      ).to.equal(true);
      expect(new Set(waysIn.map((e) => e.category)).size, `categories, seed ${seed}`).to.be.above(1);
      const total = chosen.reduce((s, e) => s + e.difficulty, 0);
      expect(Math.abs(total - target), `difficulty ${total} against ${target}, seed ${seed}`).to.be.at.most(
        1,
      );
      for (const id of ids) seen.add(id);
    }
    // Balance leaves every entry a chance.
    expect([...seen].sort()).to.deep.equal(full.map((e) => e.id).sort());
  });

  it('never gives a reset box its previous loadout', () => {
    let previous = chooseLoadout(full, undefined, { random: seeded(7) });
    for (let seed = 100; seed < 400; seed++) {
      const next = chooseLoadout(full, undefined, { previous, random: seeded(seed) });
      expect([...next].sort(), `seed ${seed}`).to.not.deep.equal([...previous].sort());
      previous = next;
    }
    // Even where only two loadouts exist at all, and a generator that keeps drawing the same one.
    const tiny = [entry('a', 'in', 1), entry('b', 'in', 2), entry('c', 'up', 1)];
    const stuck: RandomInt = () => 0;
    const first = chooseLoadout(tiny, { in: 1, up: 1 }, { random: stuck });
    const second = chooseLoadout(tiny, { in: 1, up: 1 }, { previous: first, random: seeded(3) });
    expect(second).to.not.deep.equal(first);
    // Where the previous loadout is the only one of its size, it is given again rather than none.
    expect([...chooseLoadout(tiny, { in: 2, up: 1 }, { previous: ['a', 'b', 'c'] })].sort()).to.deep.equal([
      'a',
      'b',
      'c',
    ]);
    // No loadout at all (BOX_LOADOUT_IN and BOX_LOADOUT_UP 0) is a loadout, on reset too.
    expect(chooseLoadout(full, { in: 0, up: 0 })).to.deep.equal([]);
    expect(chooseLoadout(full, { in: 0, up: 0 }, { previous: [] })).to.deep.equal([]);
  });

  it('takes the sizes it is given and refuses ones the catalogue cannot fill', () => {
    expect(chooseLoadout(full, { in: 1, up: 0 }, { random: seeded(1) })).to.have.length(1);
    expect(chooseLoadout(full, { in: 5, up: 4 }, { random: seeded(2) })).to.have.length(9);
    expect(() => chooseLoadout(full, { in: 9, up: 1 })).to.throw(/asks for 9 ways in; the catalogue has 8/);
    expect(() => chooseLoadout(full, { in: -1, up: 1 })).to.throw(/whole number/);
    expect(() => chooseLoadout(full, { in: 1.5, up: 1 })).to.throw(/whole number/);
  });

  it('draws from the real catalogue', () => {
    const real = loadCatalogue();
    const size = {
      in: Math.min(3, real.filter((e) => e.kind === 'in').length),
      up: Math.min(2, real.filter((e) => e.kind === 'up').length),
    };
    const ids = chooseLoadout(real, size);
    expect(ids).to.have.length(size.in + size.up);
  });
});
