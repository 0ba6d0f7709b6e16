import { makeAutoObservable } from 'mobx';

/** State of the chrome around pages: the floating help menu and the sidebar. */
export class UiStore {
  helpMenuOpen = false;
  /** Groups of the help menu the user has expanded, by title. */
  expandedHelpGroups = new Set<string>();
  /** The signed-in sidebar shows icons only. */
  sidebarCollapsed = false;
  /** Below the tablet breakpoint the sidebar is a drawer over the page: open or not. */
  navDrawerOpen = false;

  constructor() {
    makeAutoObservable(this);
  }

  setHelpMenuOpen(open: boolean) {
    this.helpMenuOpen = open;
  }

  toggleHelpGroup(title: string) {
    if (this.expandedHelpGroups.has(title)) this.expandedHelpGroups.delete(title);
    else this.expandedHelpGroups.add(title);
  }

  toggleSidebar() {
    this.sidebarCollapsed = !this.sidebarCollapsed;
  }

  setNavDrawerOpen(open: boolean) {
    this.navDrawerOpen = open;
  }
}
