import ContentCopy from '@mui/icons-material/ContentCopyOutlined';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { COPIED, copyLabel } from '../../strings/box.ts';
import { Stack } from '../Stack.tsx';

export type CopyFieldProps = {
  label: string;
  /** What the copy button names: 'Copy {copyName}'. */
  copyName: string;
  /** What is shown (may differ from what is copied: a hidden password). */
  display: ReactNode;
  /** What the copy button copies; null when there is nothing to copy yet. */
  value: string | null;
  copied: boolean;
  onCopy: (value: string) => void;
  /** Extra buttons after the copy button (reveal). */
  actions?: ReactNode;
};

/** A labelled monospace value with a copy button and, for 2 s after copying, a 'Copied' indicator. */
export function CopyField({ label, copyName, display, value, copied, onCopy, actions }: CopyFieldProps) {
  return (
    <Box role="group" aria-label={label}>
      <Typography variant="overline" component="p" sx={{ color: 'text.secondary', lineHeight: 1.8 }}>
        {label}
      </Typography>
      <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center', minHeight: 34 }}>
        <Typography
          component="span"
          sx={{ fontFamily: 'monospace', fontSize: '1rem', wordBreak: 'break-all', mr: 0.5 }}
        >
          {display}
        </Typography>
        {actions}
        {value !== null && (
          <Tooltip title={copyLabel(copyName)}>
            <IconButton size="small" aria-label={copyLabel(copyName)} onClick={() => onCopy(value)}>
              <ContentCopy fontSize="inherit" />
            </IconButton>
          </Tooltip>
        )}
        {copied && (
          <Typography role="status" variant="caption" sx={{ color: 'success.main', fontWeight: 700 }}>
            {COPIED}
          </Typography>
        )}
      </Stack>
    </Box>
  );
}
