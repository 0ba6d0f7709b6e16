import { expect } from 'chai';
import { VULNERABILITY_REPORT_STATUSES } from '../contracts/index.ts';
import { decide, type ReportDecision } from './states.ts';

describe("a vulnerability report's states", () => {
  const table: [ReportDecision, string, { force?: boolean; title?: boolean }, string][] = [
    // The way forward.
    ['accept', 'NEW', {}, 'ACCEPTED'],
    ['reject', 'NEW', {}, 'REJECTED'],
    ['fixed', 'ACCEPTED', {}, 'FIXED'],
    // Changing one's mind about an accepted report: severity or public title.
    ['accept', 'ACCEPTED', {}, 'ACCEPTED'],
    ['fixed', 'FIXED', { title: true }, 'FIXED'],
    // Going back, only when staff say so.
    ['accept', 'REJECTED', { force: true }, 'ACCEPTED'],
    ['reject', 'ACCEPTED', { force: true }, 'REJECTED'],
  ];
  for (const [decision, from, options, to] of table)
    it(`${decision} moves a ${from} report to ${to}${options.force ? ' with --force' : ''}`, () => {
      expect(decide(decision, from as 'NEW', { force: false, title: false, ...options })).to.deep.equal({
        ok: true,
        to,
      });
    });

  const refused: [ReportDecision, string, { force?: boolean; title?: boolean }, RegExp][] = [
    ['accept', 'REJECTED', {}, /was REJECTED: give --force/],
    ['reject', 'ACCEPTED', {}, /is ACCEPTED \(in the hall of fame\): give --force/],
    ['accept', 'FIXED', {}, /is FIXED already/],
    ['accept', 'FIXED', { force: true }, /is FIXED already/],
    ['reject', 'REJECTED', {}, /is REJECTED already/],
    ['reject', 'FIXED', {}, /a fixed finding was real/],
    ['reject', 'FIXED', { force: true }, /a fixed finding was real/],
    ['fixed', 'NEW', {}, /accept it first/],
    ['fixed', 'REJECTED', {}, /accept it first .*--force/],
    ['fixed', 'FIXED', {}, /is FIXED already/],
    // --force where nothing needs it is refused, so that it is never typed out of habit.
    ['accept', 'NEW', { force: true }, /needs no --force/],
    ['reject', 'NEW', { force: true }, /needs no --force/],
    ['fixed', 'ACCEPTED', { force: true }, /needs no --force/],
  ];
  for (const [decision, from, options, why] of refused)
    it(`refuses to ${decision} a ${from} report${options.force ? ' even with --force' : ''}`, () => {
      const verdict = decide(decision, from as 'NEW', { force: false, title: false, ...options });
      expect(verdict.ok).to.equal(false);
      expect(!verdict.ok && verdict.why).to.match(why);
    });

  it('has an answer for every decision from every state', () => {
    for (const decision of ['accept', 'reject', 'fixed'] as const)
      for (const from of VULNERABILITY_REPORT_STATUSES)
        for (const force of [false, true])
          expect(decide(decision, from, { force, title: false })).to.have.property('ok');
  });
});
