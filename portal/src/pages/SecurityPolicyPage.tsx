import { LegalPage } from '../components/legal/LegalPage.tsx';
import { securityPolicy } from '../strings/legal/securityPolicy.ts';

export type SecurityPolicyPageProps = Record<string, never>;

/** The Security Policy (/security-policy). */
export function SecurityPolicyPage(_props: SecurityPolicyPageProps) {
  return <LegalPage document={securityPolicy} />;
}
