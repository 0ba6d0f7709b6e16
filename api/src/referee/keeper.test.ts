import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { AttackServiceEvents } from '../attacks/service.ts';
import { ATTACK_MESSAGES, type Attack } from '../contracts/index.ts';
import { testLogger } from '../testing/logger.ts';
import type { Referee } from './host.ts';
import { RefereeKeeper, type JudgedAttacks } from './keeper.ts';

/** A referee whose first `failures` starts fail; it counts what it is asked. */
class FlakyReferee implements Referee {
  starts = 0;
  closes = 0;
  watched: string[] = [];
  settles = 0;
  #failures: number;
  constructor(failures: number) {
    this.#failures = failures;
  }
  async start(): Promise<void> {
    this.starts++;
    if (this.#failures-- > 0) throw new Error('bpftrace did not start');
  }
  async watch(attack: Attack): Promise<void> {
    this.watched.push(attack.id);
  }
  unwatch(): void {}
  async settled(): Promise<void> {
    this.settles++;
  }
  async close(): Promise<void> {
    this.closes++;
  }
}

const attacksServed = (): JudgedAttacks & { events: EventEmitter<AttackServiceEvents> } => ({
  events: new EventEmitter<AttackServiceEvents>(),
  refereeProblem: null,
  refereeSettled: null,
});

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await sleep(5);
  expect(check()).to.equal(true);
};

describe('referee: kept running for the attacks', () => {
  it('refuses attacks with the reason while the referee cannot start, and starts it again until it runs', async () => {
    const referee = new FlakyReferee(2);
    const attacks = attacksServed();
    const keeper = new RefereeKeeper(referee, attacks, { logger: testLogger, retryMs: 10 });
    await keeper.start();
    expect(attacks.refereeProblem).to.equal(ATTACK_MESSAGES.noReferee);
    expect(attacks.refereeSettled).to.equal(null);
    expect(keeper.running).to.equal(false);
    await until(() => keeper.running);
    expect(referee.starts).to.equal(3);
    expect(attacks.refereeProblem).to.equal(null);
    // Now it serves: attacks that start are watched, settlement waits for it.
    attacks.events.emit('attackStarted', { id: 'attack-1' } as Attack);
    expect(referee.watched).to.deep.equal(['attack-1']);
    await attacks.refereeSettled!();
    expect(referee.settles).to.equal(1);
    await keeper.close();
    expect(referee.closes).to.equal(1);
  });

  it('starts once when it can, and stops trying once closed', async () => {
    const working = new FlakyReferee(0);
    const keeper = new RefereeKeeper(working, attacksServed(), { logger: testLogger });
    await keeper.start();
    expect([keeper.running, working.starts]).to.deep.equal([true, 1]);
    await keeper.close();

    const broken = new FlakyReferee(Infinity);
    const attacks = attacksServed();
    const closed = new RefereeKeeper(broken, attacks, { logger: testLogger, retryMs: 10 });
    await closed.start();
    await closed.close();
    await sleep(50);
    expect(broken.starts).to.equal(1);
    expect(broken.closes).to.equal(0);
    expect(attacks.refereeProblem).to.equal(ATTACK_MESSAGES.noReferee);
  });
});
