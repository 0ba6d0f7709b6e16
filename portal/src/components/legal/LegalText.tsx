import Link from '@mui/material/Link';
import { Link as RouterLink } from 'react-router';
import { inlineSegments, isPortalPage } from '../../legal/inline.ts';

export type LegalTextProps = { text: string };

/**
 * A legal text's runs with their links: pages of the portal through the router, files the server serves
 * (`/pgp-key.asc`) and mail addresses as plain links.
 */
export function LegalText({ text }: LegalTextProps) {
  return (
    <>
      {inlineSegments(text).map(({ text: run, href }, i) =>
        !href ? (
          run
        ) : isPortalPage(href) ? (
          <Link key={i} component={RouterLink} to={href}>
            {run}
          </Link>
        ) : (
          <Link key={i} href={href} sx={{ overflowWrap: 'anywhere' }}>
            {run}
          </Link>
        ),
      )}
    </>
  );
}
