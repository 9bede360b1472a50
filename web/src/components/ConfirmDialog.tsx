import { useEffect, useId, useRef } from 'preact/hooks';

/** A modal confirmation: the native <dialog> traps focus, Escape cancels, focus returns where it was. */
export function ConfirmDialog(props: { title: string; body: string; confirmLabel: string; onConfirm: () => void; onCancel: () => void }) {
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
      class="dialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-body`}
      onCancel={(e) => {
        e.preventDefault();
        props.onCancel();
      }}
    >
      <h2 id={`${id}-title`}>{props.title}</h2>
      <p id={`${id}-body`}>{props.body}</p>
      <div class="dialog__actions">
        <button type="button" class="btn btn--secondary" onClick={props.onCancel}>Cancel</button>
        <button type="button" class="btn btn--danger" onClick={props.onConfirm}>{props.confirmLabel}</button>
      </div>
    </dialog>
  );
}
