import ExpandLess from '@mui/icons-material/ExpandLess';
import ExpandMore from '@mui/icons-material/ExpandMore';
import Collapse from '@mui/material/Collapse';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemText from '@mui/material/ListItemText';
import Popover from '@mui/material/Popover';
import { observer } from 'mobx-react-lite';
import { Link as RouterLink } from 'react-router';
import { useStores } from '../stores/StoresContext.tsx';
import { HELP_MENU_LABEL, helpMenuGroups } from '../strings/site.ts';

export type HelpMenuPopoverProps = { anchorEl: HTMLElement | null };

/** The help menu's popover: its three collapsible groups of links (loaded when the menu first opens). */
export const HelpMenuPopover = observer(function HelpMenuPopover({ anchorEl }: HelpMenuPopoverProps) {
  const { ui } = useStores();
  return (
    <Popover
      open={ui.helpMenuOpen}
      anchorEl={anchorEl}
      onClose={() => ui.setHelpMenuOpen(false)}
      anchorOrigin={{ vertical: 'top', horizontal: 'right' }}
      transformOrigin={{ vertical: 'bottom', horizontal: 'right' }}
      slotProps={{ paper: { sx: { width: 260, mb: 1, border: 1, borderColor: 'divider' } } }}
    >
      <List dense component="nav" aria-label={HELP_MENU_LABEL}>
        {helpMenuGroups.map((group) => {
          const expanded = ui.expandedHelpGroups.has(group.title);
          return (
            <li key={group.title}>
              <ListItemButton onClick={() => ui.toggleHelpGroup(group.title)} aria-expanded={expanded}>
                <ListItemText primary={group.title} slotProps={{ primary: { sx: { fontWeight: 700 } } }} />
                {expanded ? <ExpandLess /> : <ExpandMore />}
              </ListItemButton>
              <Collapse in={expanded} timeout="auto" unmountOnExit>
                <List dense disablePadding>
                  {group.links.map((link) => (
                    <li key={link.to}>
                      <ListItemButton
                        component={RouterLink}
                        to={link.to}
                        onClick={() => ui.setHelpMenuOpen(false)}
                        sx={{ pl: 4 }}
                      >
                        <ListItemText primary={link.label} />
                      </ListItemButton>
                    </li>
                  ))}
                </List>
              </Collapse>
            </li>
          );
        })}
      </List>
    </Popover>
  );
});
