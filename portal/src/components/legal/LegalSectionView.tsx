import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import type { LegalSection } from '../../strings/legal/document.ts';
import { LegalBlocks } from './LegalBlocks.tsx';

export type LegalSectionViewProps = { section: LegalSection };

/** One section of a legal text: its heading (the target of the contents' link), paragraphs and lists. */
export function LegalSectionView({ section }: LegalSectionViewProps) {
  return (
    <Box component="section" aria-labelledby={section.id} sx={{ mb: 1 }}>
      <Typography
        variant="h5"
        component="h2"
        id={section.id}
        sx={{ fontSize: { xs: '1.2rem', md: '1.4rem' }, mt: 5, mb: 1.5, scrollMarginTop: 24 }}
      >
        {section.heading}
      </Typography>
      <LegalBlocks blocks={section.blocks} />
    </Box>
  );
}
