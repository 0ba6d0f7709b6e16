import { log } from '../logging.ts';

/** Plays one of the game's sounds; the RootStore takes another in tests. */
export type SoundPlayer = (url: string) => void;

/**
 * Plays one of the game's sounds (portal/public/sounds, made by hack/make-sounds.ts). Browsers refuse to play
 * before the page got a user gesture; a refused or missing sound is only logged, the toast still shows.
 */
export function playSound(url: string): void {
  if (typeof Audio === 'undefined') return;
  try {
    const audio = new Audio(url);
    audio.play().catch((error: unknown) => log.warn(`Sound not played: ${url}`, error));
  } catch (error) {
    log.warn(`Sound not played: ${url}`, error);
  }
}
