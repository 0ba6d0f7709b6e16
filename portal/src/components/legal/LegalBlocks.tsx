import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import type { LegalBlock } from '../../strings/legal/document.ts';
import { LegalText } from './LegalText.tsx';

export type LegalBlocksProps = { blocks: readonly LegalBlock[] };

/** Paragraphs and lists of a legal text. */
export function LegalBlocks({ blocks }: LegalBlocksProps) {
  return blocks.map((block, i) =>
    block.kind === 'paragraph' ? (
      <Typography key={i} sx={{ mb: 1.5, lineHeight: 1.7, '&:last-child': { mb: 0 } }}>
        <LegalText text={block.text} />
      </Typography>
    ) : (
      <Box key={i} component="ul" sx={{ pl: 3, mt: 0, mb: 1.5, '&:last-child': { mb: 0 } }}>
        {block.items.map((item, j) => (
          <Typography key={j} component="li" sx={{ mb: 1, lineHeight: 1.7 }}>
            <LegalText text={item} />
          </Typography>
        ))}
      </Box>
    ),
  );
}
