import { Suspense } from 'react';
import { lazyOr } from '../lazyOr.ts';
import type { SocialButtonsProps } from './SocialButtons.tsx';

/**
 * The buttons' code (their icons and the divider) loads only when the API offers a provider; if it cannot
 * be had, the page offers email and password alone.
 */
const SocialButtons = lazyOr<SocialButtonsProps>(
  async () => (await import('./SocialButtons.tsx')).SocialButtons,
  () => null,
);

/** Social sign-in for the providers the API has enabled; nothing, and no download, without any. */
export function SocialSignIn(props: SocialButtonsProps) {
  if (props.providers.length === 0) return null;
  return (
    <Suspense fallback={null}>
      <SocialButtons {...props} />
    </Suspense>
  );
}
