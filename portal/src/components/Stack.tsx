import Box, { type BoxProps } from '@mui/material/Box';
import type { ResponsiveStyleValue } from '@mui/system';
import type { CSSProperties, ElementType } from 'react';

/** Box's props for the element it renders (`component`), plus Stack's own. */
export type StackProps<C extends ElementType = 'div'> = BoxProps<C> & {
  component?: C;
  /** The flex direction; responsive values as in `sx`. Default: column. */
  direction?: ResponsiveStyleValue<CSSProperties['flexDirection']>;
  /** The gap between children in theme spacing units; responsive values as in `sx`. */
  spacing?: ResponsiveStyleValue<number | string>;
  /** As MUI's: the children keep their own margins (a child pushed down with `mt: 'auto'`). */
  useFlexGap?: boolean;
};

/**
 * MUI's Stack as this portal uses it (direction, spacing, useFlexGap), built on Box: a flex column or row whose
 * children are `spacing` apart, their own margins reset as MUI's Stack resets them (but with `useFlexGap`). Box is in every page's first
 * chunk; MUI's Stack would be one more chunk on the sign-in pages and `/pricing`, whose JavaScript has a
 * budget (docs/architecture.md, "Serving the portal"). Spacing is a flex gap, so rows that wrap keep it too.
 */
export function Stack<C extends ElementType = 'div'>({
  direction = 'column',
  spacing,
  useFlexGap = false,
  sx,
  ...props
}: StackProps<C>) {
  return (
    <Box
      {...props}
      sx={[
        { display: 'flex', flexDirection: direction },
        spacing !== undefined && { gap: spacing },
        spacing !== undefined && !useFlexGap && { '& > :not(style):not(style)': { margin: 0 } },
        ...(Array.isArray(sx) ? sx : [sx]),
      ]}
    />
  );
}
