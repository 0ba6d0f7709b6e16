import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';
import { SITE_NAME } from '../strings/site.ts';

export type BrandMarkProps = { to?: string };

/** The logo and name, linking home (or to `to`). */
export function BrandMark({ to = '/' }: BrandMarkProps) {
  return (
    <Box
      component={RouterLink}
      to={to}
      sx={{
        display: 'inline-flex',
        alignItems: 'center',
        gap: 1.5,
        color: 'text.primary',
        textDecoration: 'none',
      }}
    >
      <Box component="img" src="/favicon.svg" alt="" sx={{ width: 32, height: 32 }} />
      <Typography component="span" variant="h6" sx={{ letterSpacing: '0.08em', textTransform: 'uppercase' }}>
        {SITE_NAME}
      </Typography>
    </Box>
  );
}
