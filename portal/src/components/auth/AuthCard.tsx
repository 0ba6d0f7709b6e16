import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { BrandMark } from '../BrandMark.tsx';

export type AuthCardProps = { title: string; subtitle?: string; children: ReactNode };

/** The centred neon card of the sign-in and account pages, under the brand mark. */
export function AuthCard({ title, subtitle, children }: AuthCardProps) {
  return (
    <Container
      maxWidth="xs"
      sx={{
        minHeight: '100vh',
        display: 'flex',
        flexDirection: 'column',
        justifyContent: 'center',
        alignItems: 'center',
        gap: 4,
        py: 6,
      }}
    >
      <BrandMark />
      <Paper
        variant="outlined"
        sx={{
          width: '100%',
          p: { xs: 3, sm: 4 },
          bgcolor: 'rgba(11, 17, 32, 0.88)',
          borderColor: 'rgba(0, 229, 255, 0.35)',
          boxShadow: '0 0 0 1px rgba(0, 229, 255, 0.08), 0 0 48px rgba(0, 229, 255, 0.12)',
          backdropFilter: 'blur(6px)',
        }}
      >
        <Box sx={{ mb: 3 }}>
          <Typography variant="h4" component="h1" sx={{ fontSize: '1.6rem' }}>
            {title}
          </Typography>
          {subtitle && (
            <Typography color="text.secondary" sx={{ mt: 1 }}>
              {subtitle}
            </Typography>
          )}
        </Box>
        {children}
      </Paper>
    </Container>
  );
}
