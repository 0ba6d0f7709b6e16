import { LegalPage } from '../components/legal/LegalPage.tsx';
import { privacyPolicy } from '../strings/legal/privacy.ts';

export type PrivacyPolicyPageProps = Record<string, never>;

/** The Privacy Policy (/privacy-policy). */
export function PrivacyPolicyPage(_props: PrivacyPolicyPageProps) {
  return <LegalPage document={privacyPolicy} />;
}
