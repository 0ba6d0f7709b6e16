import { expect } from 'chai';
import { PASSWORD_TOO_GUESSABLE } from '../contracts/index.ts';
import { HttpError } from '../http/errors.ts';
import { CHECKED_LENGTH, assertHardToGuess, passwordWeakness, personalWords } from './password-strength.ts';

describe('password strength', () => {
  const alice = personalWords('alice', 'alice.smith@example.test');

  for (const [password, why] of [
    ['password', /heavily used password/],
    ['Password1!', /commonly used password/],
    ['password123', /commonly used password/],
    ['p4ssw0rd!', /commonly used password/],
    ['qwertyuiop', /frequently used password/],
    ['iloveyou2', /commonly used password/],
    ['Summer2026!', /Add more words/],
  ] as const) {
    it(`refuses '${password}', a long enough but common password, and says why`, () => {
      const weakness = passwordWeakness(password, alice);
      expect(weakness).to.be.a('string');
      expect(weakness).to.match(new RegExp(`^${PASSWORD_TOO_GUESSABLE.replace('.', '\\.')} `));
      expect(weakness).to.match(why);
    });
  }

  for (const password of ['alice2024', 'Alice2024!', 'alicesmith!', 'exploitgrid1']) {
    it(`refuses '${password}' for alice (alice.smith@example.test): her handle, her address or the site's name`, () => {
      expect(passwordWeakness(password, alice)).to.equal(
        `${PASSWORD_TOO_GUESSABLE} Avoid your handle, your email address and the name of this site. Add more words that are less common.`,
      );
    });
  }

  it("judges a password against its owner's words only: 'alicesmith!' is fine for someone else", () => {
    expect(passwordWeakness('alicesmith!', personalWords('bob', 'bob@example.test'))).to.equal(null);
  });

  for (const password of [
    // The fixtures' password (API, e2e and fuzz tests sign up with it).
    'correct horse battery',
    'quartz violet harbor lantern',
    'a brand new passphrase',
    'xk7!pQ2#vLm9',
  ]) {
    it(`accepts '${password}'`, () => {
      expect(passwordWeakness(password, alice)).to.equal(null);
    });
  }

  it(`judges the first ${CHECKED_LENGTH} characters only, so a check of 128 stays cheap`, () => {
    const tail = 'quartz violet harbor lantern';
    expect(passwordWeakness(`${'a'.repeat(CHECKED_LENGTH)}${tail}`)).to.match(/Repeated characters/);
    expect(passwordWeakness(`${tail}${'a'.repeat(100)}`)).to.equal(null);
    // Unbounded, a 128-character mix took 1 to 3 s of the event loop on 2 busy cores. What is judged of one is
    // its first characters only: the same verdict as for them alone (a clock here would measure the machine).
    const mixed = 'aZ4$e3!I1o0s5Ks9pQ2#vLm@7t'.repeat(5).slice(0, 128);
    expect(passwordWeakness(mixed, alice)).to.equal(passwordWeakness(mixed.slice(0, CHECKED_LENGTH), alice));
  });

  it('refuses with the 400 of an invalid field, naming the field', () => {
    let refused: unknown;
    try {
      assertHardToGuess('alice2024', { handle: 'alice', email: 'alice@example.test' });
    } catch (err) {
      refused = err;
    }
    expect(refused).to.be.instanceOf(HttpError);
    expect((refused as HttpError).statusCode).to.equal(400);
    expect((refused as HttpError).message).to.match(/^password: Password is too easy to guess\. /);
    expect(() =>
      assertHardToGuess('correct horse battery', { handle: 'alice', email: 'alice@example.test' }),
    ).not.to.throw();
  });
});
