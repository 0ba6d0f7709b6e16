import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { BrandMark } from './BrandMark.tsx';

export interface PublicPageProps {
  /** The page's heading (its h1), with the lead under it; a page that draws its own heading passes none. */
  title?: string;
  lead?: string;
  maxWidth?: 'md' | 'lg';
  children: ReactNode;
}

/** A public page of the site (/features, /how-to-play, /pricing, ...): the brand, a heading, the content. */
export function PublicPage({ title, lead, maxWidth = 'lg', children }: PublicPageProps) {
  return (
    <Container maxWidth={maxWidth} sx={{ py: { xs: 4, md: 6 } }}>
      <Box component="header" sx={{ mb: { xs: 4, md: 6 } }}>
        <BrandMark />
      </Box>
      {title && (
        <Typography variant="h2" component="h1" sx={{ fontSize: { xs: '2rem', md: '3rem' } }} gutterBottom>
          {title}
        </Typography>
      )}
      {lead && (
        <Typography color="text.secondary" sx={{ mb: 4, maxWidth: 720 }}>
          {lead}
        </Typography>
      )}
      {children}
    </Container>
  );
}
