import PlayCircleOutline from '@mui/icons-material/PlayCircleOutlined';
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
  HOW_TO_PLAY_CTA,
  HOW_TO_PLAY_DURATION,
  HOW_TO_PLAY_HEADLINE,
  HOW_TO_PLAY_TITLE,
  HOW_TO_PLAY_VIDEO_LABEL,
  howToPlaySteps,
} from '../strings/howToPlay.ts';

export type HowToPlayPageProps = Record<string, never>;

/** Five steps from sign-up to the first hunt. */
export function HowToPlayPage(_props: HowToPlayPageProps) {
  usePageMeta({
    title: HOW_TO_PLAY_TITLE,
    description: `${HOW_TO_PLAY_HEADLINE}: ${howToPlaySteps.map((s) => s.title).join(', ')}. ${HOW_TO_PLAY_DURATION}`,
  });
  return (
    <PublicPage maxWidth="md" title={HOW_TO_PLAY_HEADLINE} lead={HOW_TO_PLAY_DURATION}>
      <Paper
        variant="outlined"
        role="img"
        aria-label={HOW_TO_PLAY_VIDEO_LABEL}
        sx={{
          aspectRatio: '16 / 9',
          display: 'grid',
          placeItems: 'center',
          mb: 6,
          bgcolor: 'rgba(0,0,0,0.4)',
        }}
      >
        <Stack spacing={1} sx={{ alignItems: 'center', color: 'text.secondary' }}>
          <PlayCircleOutline sx={{ fontSize: 64, color: 'primary.main' }} />
          <Typography variant="body2">{HOW_TO_PLAY_VIDEO_LABEL}</Typography>
        </Stack>
      </Paper>
      <Stack component="ol" spacing={3} sx={{ listStyle: 'none', p: 0, m: 0 }}>
        {howToPlaySteps.map((step, i) => (
          <Stack
            component="li"
            key={step.title}
            direction="row"
            spacing={3}
            sx={{ alignItems: 'flex-start' }}
          >
            <Typography variant="h3" component="span" color="primary" aria-hidden sx={{ minWidth: 56 }}>
              {String(i + 1).padStart(2, '0')}
            </Typography>
            <Box>
              <Typography variant="h5" component="h2">
                {step.title}
              </Typography>
              <Typography color="text.secondary">{step.body}</Typography>
            </Box>
          </Stack>
        ))}
      </Stack>
      <Button variant="contained" size="large" component={RouterLink} to={paths.signup} sx={{ mt: 6 }}>
        {HOW_TO_PLAY_CTA}
      </Button>
    </PublicPage>
  );
}
