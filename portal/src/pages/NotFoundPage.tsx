import Button from '@mui/material/Button';
import Container from '@mui/material/Container';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';
import { usePageMeta } from '../components/pageMeta.ts';
import { Stack } from '../components/Stack.tsx';
import { NOT_FOUND_HOME_LINK, NOT_FOUND_TEXT, NOT_FOUND_TITLE } from '../strings/site.ts';

export type NotFoundPageProps = {
  /** Inside the signed-in layout the screen fills the content area, not the window. */
  inLayout?: boolean;
};

/** Any path the router does not know. */
export function NotFoundPage({ inLayout = false }: NotFoundPageProps) {
  usePageMeta({ title: NOT_FOUND_TITLE, noIndex: true });
  return (
    <Container
      maxWidth="sm"
      sx={{ minHeight: inLayout ? '70vh' : '100vh', display: 'grid', placeItems: 'center' }}
    >
      <Stack spacing={3} sx={{ alignItems: 'center', textAlign: 'center' }}>
        <Typography variant="h1" color="secondary" sx={{ fontSize: '5rem' }} aria-hidden>
          404
        </Typography>
        <Typography variant="h5" component="h1">
          {NOT_FOUND_TEXT}
        </Typography>
        <Button variant="outlined" component={RouterLink} to="/">
          {NOT_FOUND_HOME_LINK}
        </Button>
      </Stack>
    </Container>
  );
}
