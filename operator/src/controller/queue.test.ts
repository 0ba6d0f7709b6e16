import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { WorkQueue } from './queue.ts';

describe('WorkQueue', () => {
  it('handles a key once however often it is added while waiting', async () => {
    const seen: string[] = [];
    const queue = new WorkQueue(
      async (key) => {
        seen.push(key);
        await sleep(10);
      },
      { concurrency: 1 },
      () => {},
    );
    queue.add('busy'); // the one worker is busy while the others are added
    queue.add('a');
    queue.add('b');
    queue.add('a');
    queue.add('b');
    await sleep(60);
    expect(seen).to.deep.equal(['busy', 'a', 'b']);
  });

  it('never runs one key twice at once, and runs it again when it changed meanwhile', async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    const queue = new WorkQueue(
      async () => {
        running += 1;
        most = Math.max(most, running);
        runs += 1;
        await sleep(30);
        running -= 1;
      },
      { concurrency: 4 },
      () => {},
    );
    queue.add('a');
    await sleep(5);
    queue.add('a'); // in flight: marked, runs again after
    queue.add('a');
    await sleep(100);
    expect(most).to.equal(1);
    expect(runs).to.equal(2);
  });

  it('retries a failing key with growing delays and forgets failures after a success', async () => {
    const attempts: number[] = [];
    const delays: number[] = [];
    const queue = new WorkQueue(
      async () => {
        attempts.push(Date.now());
        if (attempts.length < 3) throw new Error('conflict');
      },
      { concurrency: 1, baseRetryMs: 20 },
      (_key, _error, retryInMs) => delays.push(retryInMs),
    );
    queue.add('a');
    await sleep(150);
    expect(attempts).to.have.length(3);
    expect(delays).to.deep.equal([20, 40]);
  });

  it('requeues after the delay a handler asks for; stop() waits for work in flight', async () => {
    let runs = 0;
    const queue = new WorkQueue(
      async () => {
        runs += 1;
        await sleep(20);
        return runs === 1 ? { requeueAfterMs: 30 } : undefined;
      },
      { concurrency: 1 },
      () => {},
    );
    queue.add('a');
    await sleep(35);
    expect(runs).to.equal(1);
    await sleep(40);
    expect(runs).to.equal(2);
    queue.add('b');
    await sleep(5);
    await queue.stop();
    expect(runs).to.equal(3);
    queue.add('c');
    await sleep(30);
    expect(runs).to.equal(3);
  });
});
