import { useId } from 'preact/hooks';

/**
 * A labelled input with its hint and its error, both tied to it (aria-describedby), the error also marking it
 * invalid. The visible label is the accessible name.
 */
export function FormField(props: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  hint?: string;
  error?: string;
  type?: 'text' | 'email' | 'password';
  autoComplete?: string;
  autoFocus?: boolean;
  maxLength?: number;
  name?: string;
  prefix?: string;
}) {
  const id = useId();
  const described = [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const input = (
    <input
      id={id}
      class="input"
      // Preact's types tie some attributes to the input type; these three take the same ones.
      type={(props.type ?? 'text') as 'text'}
      name={props.name}
      autoComplete={props.autoComplete}
      autoFocus={props.autoFocus}
      maxLength={props.maxLength}
      value={props.value}
      aria-invalid={props.error ? true : undefined}
      aria-describedby={described || undefined}
      onInput={(e) => props.onInput(e.currentTarget.value)}
    />
  );
  return (
    <div class="field">
      <label class="field__label" for={id}>
        {props.label}
      </label>
      {props.prefix ? (
        <div class="input-group">
          <span class="input-group__prefix" aria-hidden="true">
            {props.prefix}
          </span>
          {input}
        </div>
      ) : (
        input
      )}
      {props.hint && (
        <p class="hint field__hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p class="form-error" id={`${id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}
