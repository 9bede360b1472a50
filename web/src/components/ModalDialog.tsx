import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

/**
 * A modal dialog (the native <dialog>: focus trapped, Escape closes, focus back where it was), titled by its heading.
 * The channel and team dialogs are built on it.
 */
export function ModalDialog(props: { title: string; wide?: boolean; class?: string; onClose: () => void; children: ComponentChildren; describedBy?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    ref.current?.showModal();
    return () => opener?.focus?.();
  }, []);
  return (
    <dialog
      ref={ref}
      class={['dialog', props.wide ? 'dialog--wide' : '', props.class ?? ''].filter(Boolean).join(' ')}
      aria-labelledby={`${id}-title`}
      aria-describedby={props.describedBy}
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      <h2 id={`${id}-title`}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}
