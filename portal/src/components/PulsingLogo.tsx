import Box from '@mui/material/Box';
import { keyframes } from '@mui/material/styles';

const pulse = keyframes`
  0%, 100% { opacity: 0.35; transform: scale(0.94); }
  50% { opacity: 1; transform: scale(1); }
`;

export type PulsingLogoProps = { label?: string };

/** Full-screen pulsing logo, shown while a page or the signed-in user loads. */
export function PulsingLogo({ label = 'Loading' }: PulsingLogoProps) {
  return (
    <Box
      role="status"
      aria-label={label}
      sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', bgcolor: 'background.default' }}
    >
      <Box
        component="img"
        src="/favicon.svg"
        alt=""
        sx={{ width: 72, height: 72, animation: `${pulse} 1.4s ease-in-out infinite` }}
      />
    </Box>
  );
}
