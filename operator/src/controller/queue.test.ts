import FakeTimers, { type Clock } from '@sinonjs/fake-timers';
import { expect } from 'chai';
import { WorkQueue } from './queue.ts';

/**
 * The queue on a fake clock: the handlers' work takes the (fake) time each test says, and the tests move the
 * clock on, so every count below is exact however busy the machine is.
 */
describe('WorkQueue', () => {
  let clock: Clock;
  /** Work that takes `ms` on the fake clock. */
  const work = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

  beforeEach(() => {
    clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => clock.uninstall());

  it('handles a key once however often it is added while waiting', async () => {
    const seen: string[] = [];
    const queue = new WorkQueue(
      async (key) => {
        seen.push(key);
        await work(10);
      },
      { concurrency: 1 },
      () => {},
    );
    queue.add('busy'); // the one worker is busy while the others are added
    queue.add('a');
    queue.add('b');
    queue.add('a');
    queue.add('b');
    await clock.tickAsync(1000);
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
        await work(30);
        running -= 1;
      },
      { concurrency: 4 },
      () => {},
    );
    queue.add('a');
    await clock.tickAsync(5);
    queue.add('a'); // in flight: marked, runs again after
    queue.add('a');
    await clock.tickAsync(1000);
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
    const start = Date.now();
    queue.add('a');
    await clock.tickAsync(1000);
    expect(attempts.map((at) => at - start)).to.deep.equal([0, 20, 60]);
    expect(delays).to.deep.equal([20, 40]);
  });

  it('requeues after the delay a handler asks for; stop() waits for work in flight', async () => {
    let runs = 0;
    const queue = new WorkQueue(
      async () => {
        runs += 1;
        await work(20);
        return runs === 1 ? { requeueAfterMs: 30 } : undefined;
      },
      { concurrency: 1 },
      () => {},
    );
    queue.add('a');
    await clock.tickAsync(49); // the first run ends at 20, the next is due at 50
    expect(runs).to.equal(1);
    await clock.tickAsync(1);
    expect(runs).to.equal(2);
    await clock.tickAsync(100);
    queue.add('b');
    const stopped = queue.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await clock.tickAsync(19);
    expect(done).to.equal(false); // b is still in flight
    await clock.tickAsync(1);
    expect(done).to.equal(true);
    expect(runs).to.equal(3);
    queue.add('c');
    await clock.tickAsync(1000);
    expect(runs).to.equal(3);
  });
});
