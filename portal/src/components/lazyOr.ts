import { lazy, type ComponentType } from 'react';
import { log } from '../logging.ts';

/**
 * `React.lazy` for a part of a page whose code may fail to download (offline, or a chunk gone after a new
 * deployment): the page then shows `fallback` in its place instead of React's error screen.
 */
export function lazyOr<P extends object>(load: () => Promise<ComponentType<P>>, fallback: ComponentType<P>) {
  return lazy(async () => ({
    default: await load().catch((error: unknown) => {
      log.warn('Could not load a part of the page', error);
      return fallback;
    }),
  }));
}
