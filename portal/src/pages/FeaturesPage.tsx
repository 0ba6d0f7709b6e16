import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';
import { PublicPage } from '../components/PublicPage.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { Stack } from '../components/Stack.tsx';
import { paths } from '../routes/paths.ts';
import {
  FEATURES_LEAD,
  FEATURES_PRICING,
  FEATURES_TITLE,
  featureSections,
  teamCards,
} from '../strings/features.ts';
import { CREATE_IDENTITY, JACK_IN } from '../strings/home.ts';

export type FeaturesPageProps = Record<string, never>;

/** The Grid: the three ways to play, what the platform gives each, and the way in. */
export function FeaturesPage(_props: FeaturesPageProps) {
  usePageMeta({ title: FEATURES_TITLE, description: FEATURES_LEAD });
  return (
    <PublicPage title={FEATURES_TITLE} lead={FEATURES_LEAD}>
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
          {CREATE_IDENTITY}
        </Button>
        <Button variant="outlined" size="large" component={RouterLink} to={paths.pricing}>
          {FEATURES_PRICING}
        </Button>
        <Button size="large" component={RouterLink} to={paths.login}>
          {JACK_IN}
        </Button>
      </Stack>
    </PublicPage>
  );
}

const slug = (title: string) => `feature-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
