import { GIFT_MAX_CREDITS } from '../../credits/gifts.ts';
import { fail, parseLimit, positionals, stringOption, text, type StaffCommand } from '../cli.ts';
import {
  GIFT_MINT_MAX_COUNT,
  listGifts,
  mintGifts,
  parseGiftCount,
  parseGiftCredits,
  parseGiftExpiry,
  type GiftListing,
} from '../gifts.ts';

/** gifts mint and gifts list (docs/credits.md, "Gift tokens"). */
export const giftCommands: StaffCommand[] = [
  {
    name: 'gifts mint',
    usage: '--credits <n> [--count <n>] [--expires <when>] [--note <text>] [--actor <name>]',
    help: `Mints --count gift tokens (1 to ${GIFT_MINT_MAX_COUNT}, default 1), XXXX-XXXX-XXXX, each worth --credits
free credits (above 0, at most ${GIFT_MAX_CREDITS}, 2 decimals) and redeemable once on the Redeem
Gift page until --expires: a span (12h, 30d, 8w), a date (to its end, UTC) or a date and time
with its zone; without --expires they do not expire. The tokens are printed here, one a line,
and never again: the platform keeps only their hashes.`,
    options: ['credits', 'count', 'expires', 'note', 'actor'],
    prepare({ args, values }) {
      positionals(args, []);
      const expires = stringOption(values, 'expires');
      const note = stringOption(values, 'note');
      const mint = {
        creditsCents: parseGiftCredits(
          stringOption(values, 'credits') ??
            fail('gifts mint needs --credits <n>: the free credits each token grants.'),
        ),
        count: parseGiftCount(stringOption(values, 'count')),
        expiresAt: expires === undefined ? null : parseGiftExpiry(expires),
        note: note === undefined ? null : text('--note', note, 500),
      };
      return async ({ db, actor, out, err }) => {
        const minted = await mintGifts(db, { ...mint, actor });
        // The tokens alone on standard output (for a file or a mail merge); the rest on standard error.
        out(minted.map((g) => g.token).join('\n'));
        const expiry = mint.expiresAt ? `until ${mint.expiresAt.toISOString()}` : 'with no expiry';
        err(
          `Minted ${minted.length} gift token(s) of ${(mint.creditsCents / 100).toFixed(2)} free credits each, ${expiry}. They are shown only now: the platform keeps their hashes.\n` +
            `Their labels in gifts list, in the same order: ${minted.map((g) => g.hint).join(' ')}`,
        );
      };
    },
  },
  {
    name: 'gifts list',
    usage: '[--limit <n>] [--unredeemed]',
    help: `The latest gift tokens (default 50), newest first: id, label (4 symbols of its own), credits,
created, expires, who redeemed it and when, note. --unredeemed: only those not redeemed.`,
    options: ['limit', 'unredeemed'],
    prepare({ args, values }) {
      positionals(args, []);
      const query = { limit: parseLimit(values.limit, 50), unredeemed: values.unredeemed === true };
      return async ({ db, out }) => {
        const gifts = await listGifts(db, query);
        out(gifts.length ? gifts.map(giftLine).join('\n') : 'No gift tokens.');
      };
    },
  },
];

function giftLine(g: GiftListing): string {
  const expired = g.expiresAt !== null && !g.redeemedAt && Date.parse(g.expiresAt) <= Date.now();
  const redeemed = g.redeemedAt
    ? `redeemed by ${g.redeemedBy ?? 'a deleted account'} at ${g.redeemedAt}`
    : expired
      ? 'expired'
      : 'not redeemed';
  return [
    g.id,
    `label ${g.hint}`,
    `${(g.creditsCents / 100).toFixed(2)} credits`,
    `created ${g.createdAt} by ${g.createdBy}`,
    `expires ${g.expiresAt ?? 'never'}`,
    redeemed,
    ...(g.note ? [`note: ${g.note}`] : []),
  ].join('  ');
}
