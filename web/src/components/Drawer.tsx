import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { closeDrawer, openDrawer } from '../actions/drawer';
import { useStore } from '../state/use-store';
import { MenuIcon } from './icons';

/**
 * Narrow windows (styles/phone.css, up to 768px wide): the team bar and channel sidebar become a drawer over the
 * page, opened by the menu button in the channel header. Escape, a click outside or choosing a channel closes it;
 * focus moves into it and back to the button. Wider, the wrapper is `display: contents` and changes nothing.
 */

export const NARROW = '(max-width: 768px)';
const BUTTON_ID = 'drawer-button';

export function Drawer({ children }: { children: ComponentChildren }) {
  const open = useStore((s) => s.drawerOpen);
  const channelId = useStore((s) => s.currentChannelId);
  const teamId = useStore((s) => s.currentTeamId);
  const route = useStore((s) => s.route);
  const ref = useRef<HTMLDivElement>(null);
  const wasOpen = useRef(false);

  // Choosing a channel, a team or another page closes it.
  useEffect(() => closeDrawer(), [channelId, teamId, route]);

  // A window made wide again has no drawer.
  useEffect(() => {
    const mq = window.matchMedia(NARROW);
    const change = () => {
      if (!mq.matches) closeDrawer();
    };
    mq.addEventListener('change', change);
    return () => mq.removeEventListener('change', change);
  }, []);

  useLayoutEffect(() => {
    const drawer = ref.current;
    if (!drawer) return;
    // While open, the rest of the page is inert: focus stays in the drawer, as in a modal.
    for (const el of Array.from(drawer.parentElement?.children ?? [])) if (el !== drawer && el instanceof HTMLElement && !el.classList.contains('drawer__backdrop')) el.inert = open;
    if (open) {
      const target = drawer.querySelector<HTMLElement>('.sidebar__item[aria-current="page"]') ?? drawer.querySelector<HTMLElement>('a[href], button:not([disabled])');
      target?.focus();
    } else if (wasOpen.current) {
      document.getElementById(BUTTON_ID)?.focus();
    }
    wasOpen.current = open;
  }, [open]);

  return (
    <>
      <div
        ref={ref}
        id="drawer"
        class={`drawer${open ? ' is-open' : ''}`}
        role={open ? 'dialog' : undefined}
        aria-modal={open ? 'true' : undefined}
        aria-label={open ? 'Channel list' : undefined}
        onKeyDown={(e) => {
          const target = e.target instanceof Element ? e.target : null;
          // A menu or dialog inside the drawer closes itself first.
          if (e.key === 'Escape' && open && !target?.closest('[role="menu"], dialog')) {
            e.preventDefault();
            closeDrawer();
          }
        }}
      >
        {children}
      </div>
      {open && <div class="drawer__backdrop" aria-hidden="true" onClick={closeDrawer} />}
    </>
  );
}

/** The channel header's menu button (shown in narrow windows only). */
export function DrawerButton() {
  const open = useStore((s) => s.drawerOpen);
  return (
    <button
      id={BUTTON_ID}
      type="button"
      class="icon-button drawer-button"
      aria-label="Channel list"
      title="Channel list"
      aria-controls="drawer"
      aria-expanded={open ? 'true' : 'false'}
      onClick={openDrawer}
    >
      <MenuIcon size={22} />
    </button>
  );
}
