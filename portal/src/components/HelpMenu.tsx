import HelpOutline from '@mui/icons-material/HelpOutlineOutlined';
import Fab from '@mui/material/Fab';
import { observer } from 'mobx-react-lite';
import { lazy, Suspense, useRef, useState } from 'react';
import { useStores } from '../stores/StoresContext.tsx';
import { HELP_MENU_LABEL } from '../strings/site.ts';

// The popover, its lists and transitions load when the menu first opens: no page waits for them.
const HelpMenuPopover = lazy(async () => ({
  default: (await import('./HelpMenuPopover.tsx')).HelpMenuPopover,
}));

export type HelpMenuProps = Record<string, never>;

/** The floating round help button, bottom right, with its three collapsible groups of links. */
export const HelpMenu = observer(function HelpMenu(_props: HelpMenuProps) {
  const { ui } = useStores();
  const anchor = useRef<HTMLButtonElement>(null);
  // Once opened, the popover stays mounted so that it can play its closing transition.
  const [opened, setOpened] = useState(false);
  if (ui.helpMenuOpen && !opened) setOpened(true);
  return (
    <>
      <Fab
        ref={anchor}
        color="primary"
        size="medium"
        aria-label={HELP_MENU_LABEL}
        aria-haspopup="true"
        aria-expanded={ui.helpMenuOpen}
        onClick={() => ui.setHelpMenuOpen(!ui.helpMenuOpen)}
        sx={{ position: 'fixed', right: 24, bottom: 24, zIndex: (t) => t.zIndex.speedDial }}
      >
        <HelpOutline />
      </Fab>
      {opened && (
        <Suspense fallback={null}>
          <HelpMenuPopover anchorEl={anchor.current} />
        </Suspense>
      )}
    </>
  );
});
