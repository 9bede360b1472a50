import { appStore } from '../state/app-store';

/** Narrow windows: the channel sidebar as a drawer (components/Drawer.tsx). */

export function openDrawer(): void {
  appStore.set({ drawerOpen: true });
}

export function closeDrawer(): void {
  if (appStore.get().drawerOpen) appStore.set({ drawerOpen: false });
}
