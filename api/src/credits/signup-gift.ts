import type { Sql } from '../db/sql.ts';
import { Ledger } from './ledger.ts';

/**
 * What a new account is given, in the transaction that makes it (auth's `welcome`): `cents` free credits
 * (STARTING_FREE_CREDITS), a SIGNUP_GIFT entry of the ledger; nothing for 0.
 */
export const signupGift =
  (cents: number) =>
  async (tx: Sql, userId: string): Promise<void> => {
    if (cents > 0) await Ledger.grant(tx, userId, { freeCreditsCents: cents }, 'SIGNUP_GIFT');
  };
