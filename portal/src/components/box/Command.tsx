import Box from '@mui/material/Box';

export type CommandProps = { text: string };

/** A shell command to type, in the terminal look. */
export function Command({ text }: CommandProps) {
  return (
    <Box
      component="code"
      sx={{
        display: 'inline-block',
        px: 1,
        py: 0.25,
        borderRadius: 1,
        border: 1,
        borderColor: 'divider',
        bgcolor: 'rgba(0, 0, 0, 0.45)',
        color: 'primary.main',
        fontFamily: 'monospace',
        fontSize: '0.85rem',
        wordBreak: 'break-all',
      }}
    >
      {text}
    </Box>
  );
}
