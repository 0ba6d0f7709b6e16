import type { AlertProps } from '@mui/material/Alert';
import Box from '@mui/material/Box';
import { lazy, Suspense } from 'react';

/** MUI's Alert, its code (with its icons and close button) loaded the first time a page shows one. */
const Alert = lazy(() => import('@mui/material/Alert'));

export type NoticeProps = Pick<AlertProps, 'severity' | 'icon' | 'sx' | 'role' | 'children'>;

/**
 * An Alert on the public pages, where it shows only after something happened (a failure, a sent mail): their
 * first visit does not download it (their JavaScript has a budget, docs/architecture.md). Until its code is
 * here the same words show at once, plainly, with the same role, so nothing waits for it.
 */
export function Notice({ severity = 'success', role, sx, ...props }: NoticeProps) {
  return (
    <Suspense
      fallback={
        <Box
          role={role ?? 'alert'}
          sx={[
            { px: 2, py: 1.5, borderLeft: 3, borderColor: `${severity}.main` },
            ...(Array.isArray(sx) ? sx : [sx]),
          ]}
        >
          {props.children}
        </Box>
      }
    >
      <Alert severity={severity} role={role} sx={sx} {...props} />
    </Suspense>
  );
}
