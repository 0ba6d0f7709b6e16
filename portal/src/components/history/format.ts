/** Dates of the Kill Chains page in the viewer's own locale and time zone. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const preciseDateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const timeOfDay = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** The list's Date column: 'Mar 1, 2026, 2:05 PM' in an English locale. */
export const formatDateTime = (iso: string) => dateTime.format(new Date(iso));
/** Start and end of an attack, to the second. */
export const formatPreciseDateTime = (iso: string) => preciseDateTime.format(new Date(iso));
/** A timeline row: '14:05:09' (attacks last minutes, within one day). */
export const formatTimeOfDay = (iso: string) => timeOfDay.format(new Date(iso));
