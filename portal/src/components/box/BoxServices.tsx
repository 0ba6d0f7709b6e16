import type { Box as BoxModel } from '@exploit-grid/api/contracts';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';
import {
  NO_SERVICES,
  SERVICES_INTRO,
  SERVICES_START,
  SERVICES_TITLE,
  SERVICE_LISTENING,
  SERVICE_NOT_LISTENING,
  servicePort,
} from '../../strings/box.ts';
import { Stack } from '../Stack.tsx';

export type BoxServicesProps = { box: BoxModel };

/**
 * The services the box must keep up (its loadout's, by port) and what each must keep doing, with whether
 * its port listens now while the box runs; a few lines on what that means and how to start. Never which
 * weaknesses were planted.
 */
export function BoxServices({ box }: BoxServicesProps) {
  const services = box.services ?? [];
  return (
    <Box component="section" aria-labelledby="box-services-title" data-testid="box-services">
      <Typography
        id="box-services-title"
        variant="overline"
        component="h4"
        sx={{ color: 'text.secondary', lineHeight: 1.8 }}
      >
        {SERVICES_TITLE}
      </Typography>
      {services.length === 0 ? (
        <Typography color="text.secondary">{NO_SERVICES}</Typography>
      ) : (
        <Stack spacing={1.5}>
          <Typography variant="body2" color="text.secondary">
            {SERVICES_INTRO}
          </Typography>
          <Box component="ul" sx={{ m: 0, p: 0, listStyle: 'none', display: 'grid', gap: 1 }}>
            {services.map((service) => {
              const listening = String(service.port) in box.openPorts;
              return (
                <Box
                  component="li"
                  key={service.port}
                  sx={{ p: 1.5, border: 1, borderColor: 'divider', borderRadius: 1 }}
                >
                  <Stack
                    direction="row"
                    spacing={1}
                    sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 0.5 }}
                  >
                    <Typography sx={{ fontWeight: 700 }}>{service.name}</Typography>
                    <Typography sx={{ fontFamily: 'monospace', color: 'primary.main' }}>
                      {servicePort(service.port)}
                    </Typography>
                    {box.status === 'RUNNING' && (
                      <Chip
                        size="small"
                        variant="outlined"
                        color={listening ? 'success' : 'warning'}
                        label={listening ? SERVICE_LISTENING : SERVICE_NOT_LISTENING}
                      />
                    )}
                  </Stack>
                  <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5 }}>
                    {service.keeps}
                  </Typography>
                </Box>
              );
            })}
          </Box>
          <Typography variant="body2" color="text.secondary">
            {SERVICES_START}
          </Typography>
        </Stack>
      )}
    </Box>
  );
}
