import Box from '@mui/material/Box';
import { keyframes, type SxProps, type Theme } from '@mui/material/styles';
import { useId, type ChangeEvent, type ReactNode } from 'react';

/**
 * The filter sidebar's controls as the browser's own elements, styled like the portal's outlined fields: MUI's
 * FormControl, NativeSelect, InputAdornment, Checkbox and Skeleton would add about 15 kB compressed to the
 * careers pages, whose JavaScript has the public pages' budget (docs/architecture.md, "Serving the portal").
 * Native selects also open the phone's own picker.
 */

const outlined = {
  width: '100%',
  boxSizing: 'border-box',
  font: 'inherit',
  fontSize: '0.95rem',
  color: 'text.primary',
  bgcolor: 'transparent',
  colorScheme: 'dark',
  border: '1px solid rgba(255, 255, 255, 0.23)',
  borderRadius: 1,
  height: 40,
  px: 1.5,
  '&:hover': { borderColor: 'text.primary' },
  '&:focus-visible': { outline: 'none', borderColor: 'primary.main', boxShadow: '0 0 0 1px #00e5ff' },
} as const;

const labelSx = {
  display: 'block',
  color: 'text.secondary',
  fontSize: '0.75rem',
  letterSpacing: '0.03em',
  mb: 0.75,
} as const;

/** A labelled native select. */
export function SelectField({
  label,
  value,
  onChange,
  children,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <Box>
      <Box component="label" htmlFor={id} sx={labelSx}>
        {label}
      </Box>
      <Box
        component="select"
        id={id}
        value={value}
        onChange={(event: ChangeEvent<HTMLSelectElement>) => onChange(event.target.value)}
        sx={{
          ...outlined,
          cursor: 'pointer',
          '& option': { bgcolor: 'background.paper', color: 'text.primary' },
        }}
      >
        {children}
      </Box>
    </Box>
  );
}

/** A search box with a magnifier drawn in CSS. */
export function SearchField({
  label,
  placeholder,
  value,
  maxLength,
  onChange,
}: {
  label: string;
  placeholder: string;
  value: string;
  maxLength: number;
  onChange: (value: string) => void;
}) {
  return (
    <Box sx={{ position: 'relative' }}>
      <Box
        aria-hidden
        sx={{
          position: 'absolute',
          left: 13,
          top: 12,
          width: 11,
          height: 11,
          border: '2px solid',
          borderColor: 'text.secondary',
          borderRadius: '50%',
          '&::after': {
            content: '""',
            position: 'absolute',
            width: 6,
            height: 2,
            bgcolor: 'text.secondary',
            left: 8,
            top: 10,
            transform: 'rotate(45deg)',
          },
        }}
      />
      <Box
        component="input"
        type="search"
        value={value}
        placeholder={placeholder}
        aria-label={label}
        maxLength={maxLength}
        onChange={(event: ChangeEvent<HTMLInputElement>) => onChange(event.target.value)}
        sx={{ ...outlined, pl: 4.5, '&::placeholder': { color: 'text.secondary', opacity: 1 } }}
      />
    </Box>
  );
}

/** A labelled native checkbox in the theme's colour. */
export function CheckField({
  label,
  checked,
  onChange,
}: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <Box
      component="label"
      sx={{ display: 'flex', alignItems: 'center', gap: 1.25, cursor: 'pointer', userSelect: 'none' }}
    >
      <Box
        component="input"
        type="checkbox"
        checked={checked}
        onChange={(event: ChangeEvent<HTMLInputElement>) => onChange(event.target.checked)}
        sx={{ width: 18, height: 18, m: 0, accentColor: '#00e5ff', colorScheme: 'dark', cursor: 'pointer' }}
      />
      {label}
    </Box>
  );
}

const pulse = keyframes`
  0% { opacity: 1; }
  50% { opacity: 0.4; }
  100% { opacity: 1; }
`;

/** A grey shape that pulses where content is coming (MUI's Skeleton, without its code). */
export function Placeholder({
  width,
  height = 16,
  sx,
}: {
  width: number | string;
  height?: number;
  sx?: SxProps<Theme>;
}) {
  return (
    <Box
      aria-hidden
      sx={[
        {
          width,
          height,
          borderRadius: 1,
          bgcolor: 'rgba(255, 255, 255, 0.11)',
          animation: `${pulse} 1.6s ease-in-out 0.5s infinite`,
        },
        ...(Array.isArray(sx) ? sx : [sx]),
      ]}
    />
  );
}

/** A mailto link in the theme's link colour. */
export function MailLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Box
      component="a"
      href={`mailto:${encodeURI(to)}`}
      sx={{
        color: 'primary.main',
        textDecorationColor: 'rgba(0, 229, 255, 0.4)',
        '&:hover': { textDecorationColor: 'inherit' },
      }}
    >
      {children}
    </Box>
  );
}
