import { MAIL_COOLDOWN_SECONDS } from '@exploit-grid/api/contracts/constants';
import { action, makeObservable, observable } from 'mobx';
import { ApiError } from '../api/ApiError.ts';

/** The mails a visitor can ask for again: the verification link and the password reset link. */
export type MailKind = 'verify' | 'reset';

/**
 * When a link of a kind may next be asked for an address. The API sends one a minute per address and kind
 * (sign-up counts as a verification mail) and answers 429 with Retry-After sooner: the pages count down on
 * their button instead of letting a second click fail. Kept by the AuthStore, so that the countdown started
 * by a sign-up is still running on Awaiting Confirmation.
 */
export class MailCooldowns {
  /** Epoch milliseconds at which each `kind:address` may be asked again. */
  private readonly endsAt = observable.map<string, number>();

  constructor() {
    makeObservable<this, 'start'>(this, { start: action });
  }

  /** When asking for `kind` to `email` again makes sense (epoch ms), or null when it does now. */
  until(kind: MailKind, email: string): number | null {
    const end = this.endsAt.get(key(kind, email));
    return end !== undefined && end > Date.now() ? end : null;
  }

  /** A mail of `kind` went to `email` (or so the API says): count down a full cooldown. */
  sent(kind: MailKind, email: string): void {
    this.start(kind, email, MAIL_COOLDOWN_SECONDS);
  }

  /**
   * Runs a call that sends a mail: after an answer the cooldown starts, after a 429 it runs for what
   * Retry-After says. The call's answer or error passes through unchanged.
   */
  async track<T>(kind: MailKind, email: string, send: () => Promise<T>): Promise<T> {
    try {
      const answer = await send();
      this.sent(kind, email);
      return answer;
    } catch (error) {
      if (error instanceof ApiError && error.status === 429 && error.retryAfterSeconds !== undefined) {
        this.start(kind, email, error.retryAfterSeconds);
      }
      throw error;
    }
  }

  private start(kind: MailKind, email: string, seconds: number): void {
    this.endsAt.set(key(kind, email), Date.now() + seconds * 1000);
  }
}

/** The API keys its cooldown on the normalised address (trimmed, lower-cased): so do we. */
const key = (kind: MailKind, email: string) => `${kind}:${email.trim().toLowerCase()}`;
