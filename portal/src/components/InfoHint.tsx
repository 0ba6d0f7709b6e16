import InfoOutlined from '@mui/icons-material/InfoOutlined';
import Box from '@mui/material/Box';
import ClickAwayListener from '@mui/material/ClickAwayListener';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import { useId, useState } from 'react';
import { aboutLabel } from '../strings/hints.ts';
import { visuallyHidden } from './styles.ts';

export type InfoHintProps = {
  /** What it explains, for the button's name: 'About {topic}'. */
  topic: string;
  /** The explanation. */
  text: string;
};

/**
 * A small info button with a short explanation: shown on hover and on keyboard focus, toggled by a click or a
 * tap, closed with Escape or a click elsewhere. Screen readers get the text as the button's description at
 * once (it is in the page, hidden from sight), without opening anything.
 */
export function InfoHint({ topic, text }: InfoHintProps) {
  const [open, setOpen] = useState(false);
  const descriptionId = useId();
  return (
    <ClickAwayListener onClickAway={() => setOpen(false)}>
      <Box component="span" sx={{ display: 'inline-flex', verticalAlign: 'middle' }}>
        <Tooltip
          title={text}
          open={open}
          onOpen={() => setOpen(true)}
          onClose={() => setOpen(false)}
          describeChild
          arrow
        >
          <IconButton
            size="small"
            aria-label={aboutLabel(topic)}
            aria-describedby={descriptionId}
            onClick={() => setOpen((shown) => !shown)}
            onKeyDown={(event) => {
              if (event.key === 'Escape') setOpen(false);
            }}
            sx={{ p: 0.25, color: 'text.secondary' }}
          >
            <InfoOutlined sx={{ fontSize: 16 }} />
          </IconButton>
        </Tooltip>
        <Box component="span" id={descriptionId} sx={visuallyHidden}>
          {text}
        </Box>
      </Box>
    </ClickAwayListener>
  );
}
