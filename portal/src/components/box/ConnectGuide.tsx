import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import { useId, useState } from 'react';
import {
  CONNECT_SYSTEMS,
  CONNECT_SYSTEMS_LABEL,
  HOW_TO_CONNECT,
  connectSteps,
  systemNames,
  type ConnectSystem,
} from '../../strings/box.ts';
import { Command } from './Command.tsx';

export type ConnectGuideProps = {
  /** The config file the player downloads (`udp_<handle>.ovpn`). */
  configFile: string;
  /** The box's address, when it has one. */
  ip: string | null;
};

/**
 * How to connect, one tab per system (Linux: the OpenVPN command line; macOS: Tunnelblick or OpenVPN Connect;
 * Windows: OpenVPN Connect or OpenVPN GUI), opened on the system this browser runs on. The tabs follow the
 * WAI-ARIA tabs pattern (arrow keys move between them).
 */
export function ConnectGuide({ configFile, ip }: ConnectGuideProps) {
  const [system, setSystem] = useState<ConnectSystem>(browserSystem);
  const id = useId();
  const tabId = (s: ConnectSystem) => `${id}-tab-${s}`;
  const panelId = (s: ConnectSystem) => `${id}-panel-${s}`;
  return (
    <Box>
      <Typography variant="subtitle2" component="h3" sx={{ mb: 1 }}>
        {HOW_TO_CONNECT}
      </Typography>
      <Tabs
        value={system}
        onChange={(_event, value: ConnectSystem) => setSystem(value)}
        aria-label={CONNECT_SYSTEMS_LABEL}
        variant="fullWidth"
        sx={{ minHeight: 36, mb: 1.5, borderBottom: 1, borderColor: 'divider' }}
      >
        {CONNECT_SYSTEMS.map((s) => (
          <Tab
            key={s}
            value={s}
            label={systemNames[s]}
            id={tabId(s)}
            aria-controls={panelId(s)}
            sx={{ minHeight: 36, py: 0.5 }}
          />
        ))}
      </Tabs>
      {CONNECT_SYSTEMS.map((s) => (
        <Box key={s} role="tabpanel" id={panelId(s)} aria-labelledby={tabId(s)} hidden={s !== system}>
          {s === system && (
            <Box component="ol" sx={{ m: 0, pl: 2.5, display: 'grid', gap: 1, color: 'text.secondary' }}>
              {connectSteps(s, configFile, ip).map((step) => (
                <li key={step.text}>
                  {step.text}
                  {step.command && (
                    <>
                      {' '}
                      <Command text={step.command} />
                    </>
                  )}
                  {step.links?.map((link, index) => (
                    <span key={link.href}>
                      {index === 0 ? ' ' : ' or '}
                      <Link href={link.href} target="_blank" rel="noopener noreferrer">
                        {link.label}
                      </Link>
                    </span>
                  ))}
                </li>
              ))}
            </Box>
          )}
        </Box>
      ))}
    </Box>
  );
}

/** The system this browser runs on, as far as it says; Linux when it does not. */
function browserSystem(): ConnectSystem {
  const nav = typeof navigator === 'undefined' ? null : navigator;
  const hints = nav as (Navigator & { userAgentData?: { platform?: string } }) | null;
  const platform = `${hints?.userAgentData?.platform ?? ''} ${nav?.platform ?? ''} ${nav?.userAgent ?? ''}`;
  if (/\b(win|windows)/i.test(platform)) return 'windows';
  if (/\b(mac|macintosh|macos|macintel)/i.test(platform) && !/iphone|ipad/i.test(platform)) return 'macos';
  return 'linux';
}
