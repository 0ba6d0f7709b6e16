/**
 * The portal's only console access: failures the user need not see (a logout the server did not
 * confirm, a socket opened without a user) are still worth a line in the browser console.
 */
export const log = {
  warn(message: string, detail?: unknown) {
    // eslint-disable-next-line no-console
    if (detail === undefined) console.warn(message);
    // eslint-disable-next-line no-console
    else console.warn(message, detail);
  },
};
