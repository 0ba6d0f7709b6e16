import { lazy, Suspense, useSyncExternalStore } from 'react';
import { toasterWanted } from './toast.ts';

const Toaster = lazy(() => import('./Toaster.tsx'));

/** Mounts the toaster once the first toast is asked for (its code loads then: `toast.ts`). */
export function ToastHost() {
  const wanted = useSyncExternalStore(toasterWanted.subscribe, toasterWanted.get, () => false);
  return wanted ? (
    <Suspense>
      <Toaster />
    </Suspense>
  ) : null;
}
