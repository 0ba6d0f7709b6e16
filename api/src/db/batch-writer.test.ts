import { expect } from 'chai';
import { BatchWriter, type BatchResult } from './batch-writer.ts';

/** A promise and the functions that settle it. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ([resolve, reject] = [res, rej]));
  return { promise, resolve, reject };
}

/** Lets the event loop go round until `done` holds. */
async function until(done: () => boolean) {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(done()).to.equal(true);
}

describe('BatchWriter: one batch at a time, whatever arrives meanwhile goes in the next', () => {
  it('writes an item that arrives while idle at once, alone, and the items that came during it together', async () => {
    const batches: number[][] = [];
    const gates: ReturnType<typeof deferred<void>>[] = [];
    const writer = new BatchWriter<number, string>(async (items) => {
      batches.push(items);
      const gate = deferred<void>();
      gates.push(gate);
      await gate.promise;
      return items.map((n) => ({ ok: true, value: `#${n}` }));
    });

    const first = writer.add(1);
    await until(() => batches.length === 1);
    expect(batches).to.deep.equal([[1]]);
    const rest = [writer.add(2), writer.add(3), writer.add(4)];
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(batches).to.have.length(1); // the first batch still runs

    gates[0]!.resolve();
    expect(await first).to.equal('#1');
    await until(() => batches.length === 2);
    expect(batches).to.deep.equal([[1], [2, 3, 4]]);
    gates[1]!.resolve();
    expect(await Promise.all(rest)).to.deep.equal(['#2', '#3', '#4']);
  });

  it('fails only the item its result says, and a whole batch when the write throws; the next batch goes on', async () => {
    let calls = 0;
    const writer = new BatchWriter<number, number>(async (items) => {
      calls++;
      if (items.includes(13)) throw new Error('the database is gone');
      return items.map((n): BatchResult<number> =>
        n < 0 ? { ok: false, error: new Error(`bad ${n}`) } : { ok: true, value: n * 2 },
      );
    });
    const [good, bad] = await Promise.allSettled([writer.add(1), writer.add(-1)]);
    expect(good).to.deep.equal({ status: 'fulfilled', value: 2 });
    expect((bad as PromiseRejectedResult).reason.message).to.equal('bad -1');

    const doomed = await Promise.allSettled([writer.add(13), writer.add(2)]);
    expect(doomed.map((r) => r.status)).to.deep.equal(['rejected', 'rejected']);
    expect(await writer.add(3)).to.equal(6);
    expect(calls).to.equal(3);
  });

  it('splits a long queue into batches of at most the size it was given', async () => {
    const sizes: number[] = [];
    const writer = new BatchWriter<number, number>(async (items) => {
      sizes.push(items.length);
      return items.map((n) => ({ ok: true, value: n }));
    }, 4);
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => writer.add(i)));
    expect(all).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(sizes).to.deep.equal([4, 4, 2]);
  });
});
