import Download from '@mui/icons-material/Download';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { useEffect, useState } from 'react';
import { log } from '../../logging.ts';
import { toast } from '../../notifications/toast.ts';
import {
  CONTENTS,
  DOWNLOAD_PDF,
  GENERATING_PDF,
  PDF_FAILED,
  PDF_NO_CONTENT,
  lastUpdated,
  type LegalDocument,
} from '../../strings/legal/document.ts';
import { PublicPage } from '../PublicPage.tsx';
import { usePageMeta } from '../pageMeta.ts';
import { Stack } from '../Stack.tsx';
import { LegalBlocks } from './LegalBlocks.tsx';
import { LegalSectionView } from './LegalSectionView.tsx';
import { LegalText } from './LegalText.tsx';

export type LegalPageProps = { document: LegalDocument };

/**
 * A legal text (the privacy policy, the terms, the security policy): its last-updated date, Download PDF, the
 * contents, the sections and the contact block. The PDF is made from the same data (`legal/pdf.ts`, with
 * jsPDF), whose code loads only when the button is pressed.
 */
export function LegalPage({ document }: LegalPageProps) {
  usePageMeta({ title: document.title, description: document.description });
  const [generating, setGenerating] = useState(false);
  // A prerendered page (prerender.tsx) shows the button before the app runs: it is disabled until it works.
  const [live, setLive] = useState(false);
  useEffect(() => setLive(true), []);

  async function downloadPdf() {
    if (document.sections.length === 0) {
      toast.error(PDF_NO_CONTENT);
      return;
    }
    setGenerating(true);
    try {
      const { downloadLegalPdf } = await import('../../legal/pdf.ts');
      downloadLegalPdf(document, window.location.origin);
    } catch (error) {
      log.warn('Could not generate the PDF', error);
      toast.error(PDF_FAILED);
    } finally {
      setGenerating(false);
    }
  }

  return (
    <PublicPage title={document.title} maxWidth="md">
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={2}
        sx={{ alignItems: { xs: 'flex-start', sm: 'center' }, justifyContent: 'space-between', mb: 4 }}
      >
        <Typography color="text.secondary">
          <time dateTime={document.revised}>{lastUpdated(document.revised)}</time>
        </Typography>
        <Button
          variant="outlined"
          startIcon={<Download />}
          onClick={() => void downloadPdf()}
          disabled={!live}
          loading={generating}
          loadingPosition="start"
        >
          {generating ? GENERATING_PDF : DOWNLOAD_PDF}
        </Button>
      </Stack>
      {document.intro.map((text, i) => (
        <Typography key={i} sx={{ mb: 1.5, lineHeight: 1.7 }}>
          <LegalText text={text} />
        </Typography>
      ))}
      <Paper component="nav" variant="outlined" aria-label={CONTENTS} sx={{ p: { xs: 2, md: 3 }, my: 4 }}>
        <Typography variant="h6" component="h2" sx={{ fontSize: '1rem', mb: 1 }}>
          {CONTENTS}
        </Typography>
        <Box component="ol" sx={{ listStyle: 'none', p: 0, m: 0, columns: { md: 2 }, columnGap: 4 }}>
          {document.sections.map((section) => (
            <Box component="li" key={section.id} sx={{ py: 0.5, breakInside: 'avoid' }}>
              <Link href={`#${section.id}`} underline="hover" color="text.secondary">
                {section.heading}
              </Link>
            </Box>
          ))}
        </Box>
      </Paper>
      {document.sections.map((section) => (
        <LegalSectionView key={section.id} section={section} />
      ))}
      <Paper
        component="section"
        variant="outlined"
        aria-labelledby={document.contact.id}
        sx={{ p: { xs: 2, md: 3 }, mt: 6, borderColor: 'primary.main' }}
      >
        <Typography variant="h5" component="h2" id={document.contact.id} sx={{ fontSize: '1.2rem', mb: 1 }}>
          {document.contact.heading}
        </Typography>
        <LegalBlocks blocks={document.contact.blocks} />
      </Paper>
    </PublicPage>
  );
}
