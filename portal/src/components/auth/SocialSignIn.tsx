import { lazy, Suspense } from 'react';
import type { SocialButtonsProps } from './SocialButtons.tsx';

/** The buttons' code (their icons and the divider) loads only when the API offers a provider. */
const SocialButtons = lazy(async () => ({ default: (await import('./SocialButtons.tsx')).SocialButtons }));

/** Social sign-in for the providers the API has enabled; nothing, and no download, without any. */
export function SocialSignIn(props: SocialButtonsProps) {
  if (props.providers.length === 0) return null;
  return (
    <Suspense fallback={null}>
      <SocialButtons {...props} />
    </Suspense>
  );
}
