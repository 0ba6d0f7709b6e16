import Box from '@mui/material/Box';
import type { SxProps, Theme } from '@mui/material/styles';

export type TagProps = {
  label: string;
  color?: 'default' | 'primary' | 'success';
  variant?: 'filled' | 'outlined';
  sx?: SxProps<Theme>;
};

/**
 * A label that only says something (a tier's state), drawn as MUI's small Chip: Chip's code (a button base,
 * ripples, a delete icon) is one more chunk on `/pricing`, whose JavaScript has a budget.
 */
export function Tag({ label, color = 'default', variant = 'filled', sx }: TagProps) {
  const main = color === 'default' ? 'text.secondary' : `${color}.main`;
  return (
    <Box
      component="span"
      sx={[
        {
          display: 'inline-flex',
          alignItems: 'center',
          height: 24,
          px: 1,
          borderRadius: 12,
          border: 1,
          fontSize: '0.8125rem',
          lineHeight: 1,
          whiteSpace: 'nowrap',
        },
        variant === 'outlined'
          ? { borderColor: main, color: color === 'default' ? 'text.primary' : main }
          : {
              borderColor: 'transparent',
              bgcolor: color === 'default' ? 'action.selected' : main,
              color: color === 'default' ? 'text.primary' : `${color}.contrastText`,
            },
        ...(Array.isArray(sx) ? sx : [sx]),
      ]}
    >
      {label}
    </Box>
  );
}
