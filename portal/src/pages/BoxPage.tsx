import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { useEffect } from 'react';
import { PersonalBoxSection } from '../components/box/PersonalBoxSection.tsx';
import { VpnAccessSection } from '../components/box/VpnAccessSection.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { useStores } from '../stores/StoresContext.tsx';
import { MY_BOX_DESCRIPTION, MY_BOX_TITLE } from '../strings/box.ts';

export type BoxPageProps = Record<string, never>;

/**
 * My Box (core-app section 2): VPN access and the personal box. On mount it loads the box, the runtime, the
 * VPN pools and clients; while mounted it runs the daily countdown's clock and polls the runtime while the
 * base image builds or the box provisions.
 */
export const BoxPage = observer(function BoxPage(_props: BoxPageProps) {
  usePageMeta({ title: MY_BOX_TITLE, description: MY_BOX_DESCRIPTION });
  const { box } = useStores();

  useEffect(() => {
    void box.loadPage();
  }, [box]);
  useEffect(() => box.watchRuntime(), [box]);
  useEffect(() => box.watchClients(), [box]);
  useEffect(() => box.runClock(), [box]);

  return (
    <Box sx={{ maxWidth: 1200, mx: 'auto' }}>
      <Typography variant="h4" component="h1" sx={{ mb: 4, fontSize: { xs: '1.6rem', md: '2.2rem' } }}>
        {MY_BOX_TITLE}
      </Typography>
      <Box
        sx={{
          display: 'grid',
          gap: 3,
          gridTemplateColumns: { xs: '1fr', lg: '2fr 3fr' },
          alignItems: 'start',
        }}
      >
        <VpnAccessSection />
        <PersonalBoxSection />
      </Box>
    </Box>
  );
});
