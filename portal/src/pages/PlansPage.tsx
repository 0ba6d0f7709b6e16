import { observer } from 'mobx-react-lite';
import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';
import { usePageMeta } from '../components/pageMeta.ts';
import { PlansScreen, type PlansMode } from '../components/plans/PlansScreen.tsx';
import { useStores } from '../stores/StoresContext.tsx';
import { PLANS_DESCRIPTION, PLANS_TITLE } from '../strings/plans.ts';

export type PlansPageProps = Record<string, never>;

/** `?mode=overview` or `?mode=purchase`; anything else is no request. */
export function modeOf(value: string | null): PlansMode | null {
  return value === 'overview' || value === 'purchase' ? value : null;
}

/**
 * /plans, signed in: the Tier Overview and Purchase Credits screen. A visit logs SUBSCRIPTIONS_VIEW; a player
 * a checkout sent back with `?success=true` or `?canceled=true` reads how it went (and a cancel is logged as
 * PAYMENT_CANCELLED). Those two parameters are then dropped from the address, so a reload repeats neither.
 */
export const PlansPage = observer(function PlansPage(_props: PlansPageProps) {
  usePageMeta({ title: PLANS_TITLE, description: PLANS_DESCRIPTION });
  const { plans } = useStores();
  const [searchParams, setSearchParams] = useSearchParams();
  const arrival = useRef({
    success: searchParams.get('success') === 'true',
    canceled: searchParams.get('canceled') === 'true',
    mode: modeOf(searchParams.get('mode')),
  });

  useEffect(() => {
    plans.enter(arrival.current);
    return () => plans.leave();
  }, [plans]);

  useEffect(() => {
    if (!searchParams.has('success') && !searchParams.has('canceled')) return;
    const rest = new URLSearchParams(searchParams);
    rest.delete('success');
    rest.delete('canceled');
    setSearchParams(rest, { replace: true });
  }, [searchParams, setSearchParams]);

  return <PlansScreen title={PLANS_TITLE} signedInPage requestedMode={arrival.current.mode} />;
});
