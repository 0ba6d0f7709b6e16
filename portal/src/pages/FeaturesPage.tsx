import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Container from '@mui/material/Container';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';
import { BrandMark } from '../components/BrandMark.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { Stack } from '../components/Stack.tsx';
import { paths } from '../routes/paths.ts';
import {
  FEATURES_LEAD,
  FEATURES_LOGIN,
  FEATURES_PRICING,
  FEATURES_SIGNUP,
  FEATURES_TITLE,
  featureSections,
  teamCards,
} from '../strings/features.ts';

export type FeaturesPageProps = Record<string, never>;

/** The Grid: the three ways to play, what the platform gives each, and the way in. */
export function FeaturesPage(_props: FeaturesPageProps) {
  usePageMeta({ title: FEATURES_TITLE, description: FEATURES_LEAD });
  return (
    <Container maxWidth="lg" sx={{ py: { xs: 4, md: 6 } }}>
      <Box component="header" sx={{ mb: 6 }}>
        <BrandMark />
      </Box>
      <Typography variant="h2" component="h1" sx={{ fontSize: { xs: '2rem', md: '3rem' } }} gutterBottom>
        {FEATURES_TITLE}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 4, maxWidth: 720 }}>
        {FEATURES_LEAD}
      </Typography>
      <Box
        component="section"
        aria-label="Teams"
        sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', md: 'repeat(3, 1fr)' }, mb: 6 }}
      >
        {teamCards.map((card) => (
          <Paper key={card.team} variant="outlined" sx={{ p: 3 }}>
            <Typography variant="h5" component="h2" color="primary" gutterBottom>
              {card.team}
            </Typography>
            <Typography color="text.secondary">{card.body}</Typography>
          </Paper>
        ))}
      </Box>
      <Box sx={{ display: 'grid', gap: 4, gridTemplateColumns: { xs: '1fr', md: 'repeat(2, 1fr)' }, mb: 6 }}>
        {featureSections.map((section) => (
          <Box component="section" key={section.title} aria-labelledby={slug(section.title)}>
            <Typography variant="h5" component="h2" id={slug(section.title)} gutterBottom>
              {section.title}
            </Typography>
            <Typography color="text.secondary">{section.body}</Typography>
          </Box>
        ))}
      </Box>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
        <Button variant="contained" size="large" component={RouterLink} to={paths.signup}>
          {FEATURES_SIGNUP}
        </Button>
        <Button variant="outlined" size="large" component={RouterLink} to={paths.pricing}>
          {FEATURES_PRICING}
        </Button>
        <Button size="large" component={RouterLink} to={paths.login}>
          {FEATURES_LOGIN}
        </Button>
      </Stack>
    </Container>
  );
}

const slug = (title: string) => `feature-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
