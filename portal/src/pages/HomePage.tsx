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
  CREATE_IDENTITY,
  CREDITS_NOTE,
  HOME_HEADLINE,
  HOME_LEAD,
  HOME_TITLE,
  HOW_TO_PLAY,
  JACK_IN,
  featureBlurbs,
} from '../strings/home.ts';

export type HomePageProps = Record<string, never>;

/** The marketing landing: Jack In, Create Identity, How to Play and three feature blurbs. */
export function HomePage(_props: HomePageProps) {
  usePageMeta({ title: HOME_TITLE });
  return (
    <Container maxWidth="lg" sx={{ py: { xs: 4, md: 6 } }}>
      <Box component="header" sx={{ mb: { xs: 6, md: 10 } }}>
        <BrandMark />
      </Box>
      <Stack spacing={3} sx={{ maxWidth: 760 }}>
        <Typography variant="overline" color="primary">
          {HOME_TITLE}
        </Typography>
        <Typography variant="h1" sx={{ fontSize: { xs: '2.4rem', md: '3.8rem' } }}>
          {HOME_HEADLINE}
        </Typography>
        <Typography
          variant="h6"
          component="p"
          color="text.secondary"
          sx={{ fontFamily: 'inherit', fontWeight: 400 }}
        >
          {HOME_LEAD}
        </Typography>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ pt: 1 }}>
          <Button variant="contained" size="large" component={RouterLink} to={paths.login}>
            {JACK_IN}
          </Button>
          <Button variant="outlined" size="large" component={RouterLink} to={paths.signup}>
            {CREATE_IDENTITY}
          </Button>
          <Button variant="text" size="large" component={RouterLink} to={paths.howToPlay}>
            {HOW_TO_PLAY}
          </Button>
        </Stack>
        <Typography variant="body2" color="text.secondary">
          {CREDITS_NOTE}
        </Typography>
      </Stack>
      <Box
        component="section"
        aria-label="Features"
        sx={{
          mt: { xs: 8, md: 12 },
          display: 'grid',
          gap: 3,
          gridTemplateColumns: { xs: '1fr', md: 'repeat(3, 1fr)' },
        }}
      >
        {featureBlurbs.map((feature, i) => (
          <Paper
            key={feature.title}
            variant="outlined"
            sx={{
              p: 3,
              borderColor: ['secondary.main', 'primary.main', '#b388ff'][i],
              bgcolor: 'rgba(11, 17, 32, 0.8)',
            }}
          >
            <Typography variant="h5" component="h2" gutterBottom>
              {feature.title}
            </Typography>
            <Typography color="text.secondary">{feature.body}</Typography>
          </Paper>
        ))}
      </Box>
    </Container>
  );
}
