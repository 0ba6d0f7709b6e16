import { PublicPage } from '../components/PublicPage.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { PlansScreen } from '../components/plans/PlansScreen.tsx';
import { PLANS_DESCRIPTION, PRICING_TITLE } from '../strings/plans.ts';

export type PricingPageProps = Record<string, never>;

/**
 * /pricing, public: the Plans screen in its overview mode. Buying needs a session, so a signed-out visitor
 * is offered 'Login to Purchase' (back to /plans afterwards), a signed-in one the Purchase Credits tab of
 * /plans. It asks the API only for the public configuration (the BASIC daily limit).
 */
export function PricingPage(_props: PricingPageProps) {
  usePageMeta({ title: PRICING_TITLE, description: PLANS_DESCRIPTION });
  return (
    <PublicPage>
      <PlansScreen title={PRICING_TITLE} signedInPage={false} requestedMode={null} />
    </PublicPage>
  );
}
