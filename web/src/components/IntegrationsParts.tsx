import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { IntegrationsView } from '../integrations-routes';
import { integrationsPath } from '../integrations-routes';
import { followLink } from '../links';
import type { IntegrationDelivery } from '../state/integrations-state';

/** What the integrations screens share: form fields beyond FormField, a copy field, the page frame, the delivery log. */

function described(id: string, hint?: string, error?: string): string | undefined {
  return [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
}

function HintAndError({ id, hint, error }: { id: string; hint?: string; error?: string }) {
  return (
    <>
      {hint && (
        <p class="hint field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="form-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </>
  );
}

export function AreaField(props: { label: string; value: string; onInput: (v: string) => void; hint?: string; error?: string; name?: string; rows?: number }) {
  const id = useId();
  return (
    <div class="field">
      <label class="field__label" for={id}>
        {props.label}
      </label>
      <textarea
        id={id}
        class="textarea"
        name={props.name}
        rows={props.rows ?? 3}
        value={props.value}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={described(id, props.hint, props.error)}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      <HintAndError id={id} hint={props.hint} error={props.error} />
    </div>
  );
}

export function SelectField(props: { label: string; value: string; onChange: (v: string) => void; options: Array<{ value: string; label: string }>; hint?: string; error?: string; name?: string }) {
  const id = useId();
  return (
    <div class="field">
      <label class="field__label" for={id}>
        {props.label}
      </label>
      <select
        id={id}
        class="input"
        name={props.name}
        value={props.value}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={described(id, props.hint, props.error)}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <HintAndError id={id} hint={props.hint} error={props.error} />
    </div>
  );
}

export function CheckField(props: { label: string; checked: boolean; onChange: (v: boolean) => void; hint?: string; name?: string }) {
  const id = useId();
  return (
    <div class="field integrations__check">
      <input id={id} type="checkbox" name={props.name} checked={props.checked} aria-describedby={props.hint ? `${id}-hint` : undefined} onChange={(e) => props.onChange(e.currentTarget.checked)} />
      <label for={id}>{props.label}</label>
      {props.hint && (
        <p class="hint field__hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
    </div>
  );
}

/** A read-only value with a Copy button (the Clipboard API; where it is refused, the value is left selected). */
export function CopyField({ label, value, multiline = false }: { label: string; value: string; multiline?: boolean }) {
  const id = useId();
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const [status, setStatus] = useState('');
  const copy = async () => {
    ref.current?.select();
    try {
      await navigator.clipboard.writeText(value);
      setStatus('Copied.');
    } catch {
      setStatus('Selected: copy it with Ctrl+C (⌘C on a Mac).');
    }
  };
  return (
    <div class="field">
      <label class="field__label" for={id}>
        {label}
      </label>
      <div class="copy-row">
        {multiline ? (
          <textarea ref={ref} id={id} class="textarea integrations__code" readOnly rows={3} value={value} onFocus={(e) => e.currentTarget.select()} />
        ) : (
          <input ref={ref} id={id} class="input" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
        )}
        <button type="button" class="btn btn--secondary" onClick={() => void copy()}>
          Copy <span class="sr-only">{label}</span>
        </button>
      </div>
      <p class="dialog__status" role="status">
        {status}
      </p>
    </div>
  );
}

/** A link to another view of the page (no reload). */
export function ViewLink({ team, view, children, class: cls }: { team: string; view: IntegrationsView; children: ComponentChildren; class?: string }) {
  const href = integrationsPath(team, view);
  return (
    <a class={cls} href={href} onClick={(e) => followLink(e, href)}>
      {children}
    </a>
  );
}

/** The frame of one screen: its heading (focused when the screen opens, so a screen reader hears where it is). */
export function Screen({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, [title]);
  return (
    <section class="integrations__screen" aria-labelledby="integrations-screen-title">
      <div class="integrations__screen-head">
        <h2 id="integrations-screen-title" class="integrations__screen-title" ref={heading} tabIndex={-1}>
          {title}
        </h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** An error or a result of an action on a list item, read out when it appears. */
export function Problem({ text }: { text: string }) {
  if (!text) return null;
  return (
    <p class="form-error" role="alert">
      {text}
    </p>
  );
}

export function formatTime(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** The delivery log: every attempt, newest first; Redeliver only where the server offers it (outgoing webhooks). */
export function DeliveryTable({ deliveries, onRedeliver }: { deliveries: IntegrationDelivery[]; onRedeliver?: (d: IntegrationDelivery) => void }) {
  if (deliveries.length === 0) return <p class="integrations__empty">No calls yet. They are listed here as they are made.</p>;
  return (
    <div class="integrations__table-wrap">
      <table class="integrations__table">
        <caption class="sr-only">Calls, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Status</th>
            <th scope="col">Duration</th>
            <th scope="col">Attempt</th>
            <th scope="col">Error</th>
            {onRedeliver && <th scope="col">Action</th>}
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => {
            const ok = d.status_code >= 200 && d.status_code < 300 && !d.error;
            return (
              <tr key={d.id} class="integrations__delivery">
                <td>{formatTime(d.request_at)}</td>
                <td>
                  <span class={`integrations__status ${ok ? 'is-ok' : 'is-failed'}`}>{d.status_code === 0 ? 'No answer' : String(d.status_code)}</span>
                </td>
                <td>{`${d.duration_ms} ms`}</td>
                <td>{String(d.attempt)}</td>
                <td class="integrations__error-cell">{d.error || '—'}</td>
                {onRedeliver && (
                  <td>
                    {d.post_id && (
                      <button type="button" class="btn btn--secondary btn--small" onClick={() => onRedeliver(d)}>
                        Redeliver <span class="sr-only">{`the call of ${formatTime(d.request_at)}`}</span>
                      </button>
                    )}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
