import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import Link from '@mui/material/Link';
import { useTheme } from '@mui/material/styles';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import { observer } from 'mobx-react-lite';
import { lazy, Suspense, useCallback, useMemo, useState } from 'react';
import { ChatPanel } from '../components/chat/ChatPanel.tsx';
import { ChatRequestPrompts } from '../components/chat/ChatRequestPrompts.tsx';
import { AttackCards } from '../components/grid/AttackCards.tsx';
import { MatchmakingPanel } from '../components/grid/MatchmakingPanel.tsx';
import { OutcomeOverlay } from '../components/grid/OutcomeOverlay.tsx';
import { PlayerList } from '../components/grid/PlayerList.tsx';
import { PvpPrompts } from '../components/grid/PvpPrompts.tsx';
import { TargetPopup } from '../components/grid/TargetPopup.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { Stack } from '../components/Stack.tsx';
import { useStores } from '../stores/StoresContext.tsx';
import {
  GEO_ATTRIBUTION,
  GEO_ATTRIBUTION_URL,
  GLOBE_LOADING,
  GRID_DESCRIPTION,
  GRID_SHEETS,
  GRID_TITLE,
  NO_WEBGL,
  OPERATORS_ONLINE,
} from '../strings/grid.ts';
import { CHAT_PANEL } from '../strings/chat.ts';
import { visuallyHidden } from '../components/styles.ts';

// three.js and the country outlines load only here, after the page shows.
const GlobeView = lazy(() => import('../components/grid/GlobeView.tsx'));

export type AttackPageProps = Record<string, never>;

/**
 * The Grid (core-app section 2 "The Grid /attack"): the globe with the operators online and the attacks in
 * flight, Find a Mark with the queue and the match, the attack cards, the target popup, PVP challenges, chat
 * requests, the chat panel and the outcome overlay. Without WebGL the globe gives way to a message; the list of
 * operators works everywhere. Phones get one column: the globe, matchmaking and the cards, then the chat and
 * the operators as tabs.
 */
export const AttackPage = observer(function AttackPage(_props: AttackPageProps) {
  usePageMeta({ title: GRID_TITLE, description: GRID_DESCRIPTION });
  const { grid, matchmaking, realtime, chat } = useStores();
  const webgl = useMemo(hasWebGL, []);
  const select = useCallback((id: string) => grid.select(id), [grid]);
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down('md'), { noSsr: true });
  const [sheet, setSheet] = useState<'chat' | 'operators'>('chat');

  const heading = (
    <Typography variant="h4" component="h1" sx={visuallyHidden}>
      {GRID_TITLE}
    </Typography>
  );
  const globe = webgl ? (
    <Suspense
      fallback={
        <Stack
          sx={{ position: 'absolute', inset: 0, alignItems: 'center', justifyContent: 'center' }}
          spacing={2}
        >
          <CircularProgress aria-label={GLOBE_LOADING} />
          <Typography color="text.secondary">{GLOBE_LOADING}</Typography>
        </Stack>
      }
    >
      <GlobeView
        players={grid.onlinePlayers}
        arcs={grid.arcs}
        meId={grid.me}
        hotIds={grid.targetIds}
        selectedId={grid.selection?.playerId ?? null}
        onSelect={select}
      />
    </Suspense>
  ) : (
    <Typography
      role="note"
      color="text.secondary"
      sx={{ position: 'absolute', top: '28%', left: 0, right: 0, textAlign: 'center', px: 4 }}
    >
      {NO_WEBGL}
    </Typography>
  );
  const cards = (
    <>
      <PvpPrompts grid={grid} />
      <ChatRequestPrompts chat={chat} />
      <AttackCards grid={grid} />
      <Box sx={{ position: 'relative' }}>
        <TargetPopup grid={grid} vpnConnected={realtime.vpnConnected} />
      </Box>
    </>
  );
  const attribution = (
    <Typography variant="caption" color="text.secondary">
      <Link href={GEO_ATTRIBUTION_URL} target="_blank" rel="noopener noreferrer" color="inherit">
        {GEO_ATTRIBUTION}
      </Link>
    </Typography>
  );
  const background = 'radial-gradient(ellipse at center, #0b1430 0%, #03060d 70%)';

  if (phone) {
    // Phones: the globe on top, then matchmaking and the cards in the page's flow, then the chat and the
    // operators as two tabs of one sheet. Nothing floats over anything else.
    return (
      <Box sx={{ background }}>
        {heading}
        <Box sx={{ position: 'relative', height: '40vh', minHeight: 240, overflow: 'hidden' }}>{globe}</Box>
        <Stack spacing={2} sx={{ p: 2, pb: 12 }}>
          <MatchmakingPanel matchmaking={matchmaking} />
          {cards}
          <Tabs
            value={sheet}
            onChange={(_event, value: 'chat' | 'operators') => setSheet(value)}
            variant="fullWidth"
            aria-label={GRID_SHEETS}
          >
            <Tab value="chat" label={CHAT_PANEL} />
            <Tab value="operators" label={OPERATORS_ONLINE} />
          </Tabs>
          {sheet === 'chat' ? (
            <ChatPanel chat={chat} grid={grid} docked />
          ) : (
            <Stack spacing={1}>
              <PlayerList grid={grid} />
              {attribution}
            </Stack>
          )}
        </Stack>
        <OutcomeOverlay grid={grid} />
      </Box>
    );
  }

  return (
    <Box
      sx={{
        position: 'relative',
        height: 'calc(100vh - 64px)',
        minHeight: 560,
        overflow: 'hidden',
        background,
      }}
    >
      {heading}
      {globe}
      {/* Left: matchmaking. Right: the attack, the challenges, the target and the operators. */}
      <Stack spacing={2} sx={{ position: 'absolute', top: 16, left: 16, zIndex: 2, pointerEvents: 'none' }}>
        <MatchmakingPanel matchmaking={matchmaking} />
      </Stack>
      {/* One column on the right: the cards on top, the operators below; they never overlap, however
          tall the cards grow. */}
      <Stack
        spacing={2}
        useFlexGap
        sx={{
          position: 'absolute',
          top: 16,
          right: 16,
          bottom: 88,
          zIndex: 2,
          alignItems: 'flex-end',
          pointerEvents: 'none',
          '& > *': { pointerEvents: 'auto' },
        }}
      >
        <Stack spacing={2} sx={{ flex: '0 1 auto', minHeight: 0, overflowY: 'auto' }}>
          {cards}
        </Stack>
        {/* The operators give way first (they scroll): the attack's cards and buttons stay in view. */}
        <Stack
          spacing={1}
          sx={{ mt: 'auto', flex: '0 1000 auto', minHeight: 96, overflowY: 'auto', alignItems: 'flex-end' }}
        >
          <PlayerList grid={grid} />
          {attribution}
        </Stack>
      </Stack>
      <ChatPanel chat={chat} grid={grid} />
      <OutcomeOverlay grid={grid} />
    </Box>
  );
});

/** Whether this browser can draw the globe. */
function hasWebGL(): boolean {
  if (typeof WebGLRenderingContext === 'undefined') return false;
  try {
    const canvas = document.createElement('canvas');
    return (canvas.getContext('webgl2') ?? canvas.getContext('webgl')) !== null;
  } catch {
    return false;
  }
}
