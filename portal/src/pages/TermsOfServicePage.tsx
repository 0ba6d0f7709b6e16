import { LegalPage } from '../components/legal/LegalPage.tsx';
import { termsOfService } from '../strings/legal/terms.ts';

export type TermsOfServicePageProps = Record<string, never>;

/** The Terms of Service (/terms-of-service). */
export function TermsOfServicePage(_props: TermsOfServicePageProps) {
  return <LegalPage document={termsOfService} />;
}
