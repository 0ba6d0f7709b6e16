import BugReportOutlined from '@mui/icons-material/BugReportOutlined';
import EmojiEventsOutlined from '@mui/icons-material/EmojiEventsOutlined';
import KeyOutlined from '@mui/icons-material/KeyOutlined';
import MailOutlined from '@mui/icons-material/MailOutlined';
import PolicyOutlined from '@mui/icons-material/PolicyOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { Suspense, lazy, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { preloadContracts } from '../api/contracts.ts';
import { PublicPage } from '../components/PublicPage.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { Stack } from '../components/Stack.tsx';
import { SEVERITY_COLORS } from '../components/security/SeverityTag.tsx';
import { paths } from '../routes/paths.ts';
import {
  ACKNOWLEDGEMENT_NOTE,
  ALTERNATIVE_CONTACT,
  ALTERNATIVE_CONTACT_BODY,
  ALTERNATIVE_CONTACT_HREF,
  ALTERNATIVE_CONTACT_TITLE,
  FIX_LABEL,
  HALL_OF_FAME_LINK,
  PGP_KEY_HINT,
  PGP_KEY_LINK,
  REPORT_VULNERABILITY,
  RESPONSE_LABEL,
  RESPONSE_TIMES_LEAD,
  RESPONSE_TIMES_TITLE,
  SCOPE_BODY,
  SCOPE_TITLE,
  SECURITY_DESCRIPTION,
  SECURITY_LEAD,
  SECURITY_POLICY_LINK,
  SECURITY_TITLE,
  responseTimes,
} from '../strings/security.ts';

/** The modal, its fields and its checks load on the first click of Report Vulnerability, not with the page. */
const ReportVulnerabilityDialog = lazy(async () => ({
  default: (await import('../components/security/ReportVulnerabilityDialog.tsx')).ReportVulnerabilityDialog,
}));

/** Served by the API at the site's root (api/src/security/routes.ts), not a page of the portal. */
export const PGP_KEY_PATH = '/pgp-key.asc';

export type SecurityPageProps = Record<string, never>;

/**
 * /security: how to report a vulnerability (the Report Vulnerability modal), the PGP key, the policy and the
 * hall of fame, the response-time targets of spec section 9, and a mail link for another way in.
 */
export function SecurityPage(_props: SecurityPageProps) {
  usePageMeta({ title: SECURITY_TITLE, description: SECURITY_DESCRIPTION });
  // Mounted on the first open and kept: a report half written survives closing the modal by mistake.
  const [dialog, setDialog] = useState<'never' | 'open' | 'closed'>('never');

  return (
    <PublicPage title={SECURITY_TITLE} lead={SECURITY_LEAD}>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} useFlexGap sx={{ flexWrap: 'wrap', mb: 6 }}>
        <Button
          variant="contained"
          size="large"
          startIcon={<BugReportOutlined />}
          onClick={() => setDialog('open')}
          onPointerEnter={preloadContracts}
        >
          {REPORT_VULNERABILITY}
        </Button>
        <Button variant="outlined" size="large" startIcon={<KeyOutlined />} href={PGP_KEY_PATH}>
          {PGP_KEY_LINK}
        </Button>
        <Button
          variant="outlined"
          size="large"
          startIcon={<PolicyOutlined />}
          component={RouterLink}
          to={paths.securityPolicy}
        >
          {SECURITY_POLICY_LINK}
        </Button>
        <Button
          variant="outlined"
          size="large"
          startIcon={<EmojiEventsOutlined />}
          component={RouterLink}
          to={paths.hallOfFame}
        >
          {HALL_OF_FAME_LINK}
        </Button>
      </Stack>

      <Box component="section" aria-labelledby="response-times" sx={{ mb: 6 }}>
        <Typography variant="h5" component="h2" id="response-times" gutterBottom>
          {RESPONSE_TIMES_TITLE}
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 3 }}>
          {RESPONSE_TIMES_LEAD}
        </Typography>
        <Box
          sx={{
            display: 'grid',
            gap: 2,
            gridTemplateColumns: { xs: '1fr', sm: 'repeat(2, 1fr)', md: 'repeat(4, 1fr)' },
            mb: 2,
          }}
        >
          {responseTimes.map((row) => (
            <Paper
              key={row.level}
              variant="outlined"
              component="article"
              aria-label={row.severity}
              sx={{ p: { xs: 2, sm: 3 }, borderTop: 3, borderTopColor: SEVERITY_COLORS[row.level] }}
            >
              <Typography
                variant="h6"
                component="h3"
                sx={{ color: SEVERITY_COLORS[row.level], mb: { xs: 1, sm: 2 } }}
              >
                {row.severity}
              </Typography>
              <Box component="dl" sx={{ m: 0, display: 'grid', gridTemplateColumns: 'auto 1fr', gap: 1 }}>
                <Typography component="dt" color="text.secondary">
                  {RESPONSE_LABEL}
                </Typography>
                <Typography component="dd" sx={{ m: 0, fontWeight: 700, textAlign: 'right' }}>
                  {row.response}
                </Typography>
                <Typography component="dt" color="text.secondary">
                  {FIX_LABEL}
                </Typography>
                <Typography component="dd" sx={{ m: 0, fontWeight: 700, textAlign: 'right' }}>
                  {row.fix}
                </Typography>
              </Box>
            </Paper>
          ))}
        </Box>
        <Typography color="text.secondary">{ACKNOWLEDGEMENT_NOTE}</Typography>
      </Box>

      <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', md: '2fr 1fr' }, mb: 2 }}>
        <Paper variant="outlined" component="section" aria-labelledby="scope" sx={{ p: 3 }}>
          <Typography variant="h6" component="h2" id="scope" gutterBottom>
            {SCOPE_TITLE}
          </Typography>
          <Typography color="text.secondary" sx={{ mb: 2 }}>
            {SCOPE_BODY}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {PGP_KEY_HINT}{' '}
            <Link href={PGP_KEY_PATH} sx={{ whiteSpace: 'nowrap' }}>
              {PGP_KEY_PATH}
            </Link>
          </Typography>
        </Paper>
        <Paper variant="outlined" component="section" aria-labelledby="alternative-contact" sx={{ p: 3 }}>
          <Typography variant="h6" component="h2" id="alternative-contact" gutterBottom>
            {ALTERNATIVE_CONTACT_TITLE}
          </Typography>
          <Typography color="text.secondary" sx={{ mb: 2 }}>
            {ALTERNATIVE_CONTACT_BODY}
          </Typography>
          <Link href={ALTERNATIVE_CONTACT_HREF} sx={{ display: 'inline-flex', alignItems: 'center', gap: 1 }}>
            <MailOutlined fontSize="small" />
            {ALTERNATIVE_CONTACT}
          </Link>
        </Paper>
      </Box>

      {dialog !== 'never' && (
        <Suspense fallback={null}>
          <ReportVulnerabilityDialog open={dialog === 'open'} onClose={() => setDialog('closed')} />
        </Suspense>
      )}
    </PublicPage>
  );
}
