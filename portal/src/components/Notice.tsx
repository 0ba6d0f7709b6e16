import type { AlertProps } from '@mui/material/Alert';
import Box from '@mui/material/Box';
import { Suspense } from 'react';
import { lazyOr } from './lazyOr.ts';

export type NoticeProps = Pick<AlertProps, 'severity' | 'icon' | 'sx' | 'role' | 'children'>;

/** The words of a notice, plainly, with a line of its severity's colour: while (or if) MUI's Alert is not here. */
function PlainNotice({
  severity = 'success',
  sx,
  children,
  role,
}: Omit<NoticeProps, 'role'> & { role?: string | null }) {
  return (
    <Box
      role={role ?? undefined}
      sx={[
        { px: 2, py: 1.5, borderLeft: 3, borderColor: `${severity}.main` },
        ...(Array.isArray(sx) ? sx : [sx]),
      ]}
    >
      {children}
    </Box>
  );
}

/** MUI's Alert, its code (with its icons and close button) loaded the first time a page shows one. */
const Alert = lazyOr<NoticeProps>(
  async () => (await import('@mui/material/Alert')).default,
  ({ role, ...props }) => <PlainNotice {...props} role={role ?? 'alert'} />,
);

/**
 * An Alert on the public pages, where it shows only after something happened (a failure, a sent mail): their
 * first visit does not download it (their JavaScript has a budget, docs/architecture.md). Until its code is
 * here the same words show at once, plainly; the Alert (or, if its code cannot be had, the plain words) then
 * takes their place with the role, so that a screen reader announces it once.
 */
export function Notice({ severity = 'success', ...props }: NoticeProps) {
  return (
    <Suspense fallback={<PlainNotice severity={severity} {...props} role={null} />}>
      <Alert severity={severity} {...props} />
    </Suspense>
  );
}
