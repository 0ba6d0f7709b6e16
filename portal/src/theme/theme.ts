import { createTheme } from '@mui/material/styles';

const mono = '"JetBrains Mono", ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';

/** The dark, neon-on-black theme of the portal. */
export const theme = createTheme({
  palette: {
    mode: 'dark',
    primary: { main: '#00e5ff', contrastText: '#021016' },
    secondary: { main: '#ff1744' },
    success: { main: '#00e676' },
    warning: { main: '#ffd600' },
    error: { main: '#ff1744' },
    background: { default: '#05070d', paper: '#0b1120' },
    text: { primary: '#e6f1ff', secondary: '#8aa0b8' },
    divider: 'rgba(0, 229, 255, 0.16)',
  },
  shape: { borderRadius: 8 },
  typography: {
    fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
    h1: { fontFamily: mono, fontWeight: 700, letterSpacing: '-0.02em' },
    h2: { fontFamily: mono, fontWeight: 700 },
    h3: { fontFamily: mono, fontWeight: 700 },
    h4: { fontFamily: mono, fontWeight: 700 },
    h5: { fontFamily: mono, fontWeight: 700 },
    h6: { fontFamily: mono, fontWeight: 700 },
    button: { fontFamily: mono, fontWeight: 700, textTransform: 'none', letterSpacing: '0.02em' },
    overline: { fontFamily: mono, letterSpacing: '0.2em' },
  },
  components: {
    MuiButton: { defaultProps: { disableElevation: true } },
    // Keyboard focus shows on everything clickable (the sidebar's entries, icon buttons, tabs, list items):
    // MUI's ripple alone is nearly invisible on this dark background. Mouse clicks draw no ring.
    MuiButtonBase: {
      styleOverrides: {
        root: {
          '&.Mui-focusVisible': { outline: '2px solid #00e5ff', outlineOffset: 2 },
        },
      },
    },
    // Links that are not buttons (text links, the status pills, the brand) ring the same way.
    MuiCssBaseline: {
      styleOverrides: { 'a:focus-visible': { outline: '2px solid #00e5ff', outlineOffset: 2 } },
    },
    MuiPaper: { styleOverrides: { root: { backgroundImage: 'none' } } },
  },
});
