/** What the API's kubernetes adapter uses of the Box resource (package export `./box`). */
export * from './types.ts';
export { LABELS, MANAGER, boxLabels } from './builders.ts';
