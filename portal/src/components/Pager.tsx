import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { Stack } from './Stack.tsx';

export type PagerProps = {
  page: number;
  pageCount: number;
  /** A page is loading: both buttons wait. */
  loading: boolean;
  onPage: (page: number) => void;
  previous: string;
  next: string;
  /** 'Page 2 of 7', announced politely when it changes. */
  label: string;
};

/** Previous / 'Page x of y' / Next under a paged list: Previous off on page 1, Next on the last one. */
export function Pager({ page, pageCount, loading, onPage, previous, next, label }: PagerProps) {
  return (
    <Stack
      direction="row"
      spacing={2}
      sx={{ px: 2, py: 1.5, alignItems: 'center', justifyContent: 'space-between' }}
    >
      <Button
        size="small"
        variant="outlined"
        disabled={loading || page <= 1}
        onClick={() => onPage(page - 1)}
      >
        {previous}
      </Button>
      <Typography
        color="text.secondary"
        aria-live="polite"
        data-testid="page-label"
        sx={{ fontFamily: 'monospace' }}
      >
        {label}
      </Typography>
      <Button
        size="small"
        variant="outlined"
        disabled={loading || page >= pageCount}
        onClick={() => onPage(page + 1)}
      >
        {next}
      </Button>
    </Stack>
  );
}
