import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

/**
 * A button opening a menu (ARIA menu button): the first item is focused on opening, Escape closes it and returns
 * focus to the button, a click outside closes it. Items are `role="menuitem"` buttons given by the caller, which
 * gets `close` to call when one is chosen.
 */
export function DropdownMenu(props: {
  class: string;
  buttonClass: string;
  menuLabel: string;
  button: ComponentChildren;
  children: (close: () => void) => ComponentChildren;
}) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  // A layout effect: the first item has the focus in the same task that shows the menu, so keys pressed as soon as
  // the menu is seen never land on the button behind it (nor does a later focus move undo the user's).
  useLayoutEffect(() => {
    if (!open) return;
    const onDoc = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', onDoc);
    // menuitem, menuitemradio or menuitemcheckbox: the first item whatever its kind.
    ref.current?.querySelector<HTMLElement>('[role^="menuitem"]')?.focus();
    return () => document.removeEventListener('mousedown', onDoc);
  }, [open]);
  return (
    <div class={props.class} ref={ref}>
      <button ref={buttonRef} type="button" class={props.buttonClass} aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen(!open)}>
        {props.button}
      </button>
      {open && (
        <div
          class="menu"
          role="menu"
          aria-label={props.menuLabel}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              setOpen(false);
              buttonRef.current?.focus();
            }
          }}
        >
          {props.children(() => setOpen(false))}
        </div>
      )}
    </div>
  );
}
