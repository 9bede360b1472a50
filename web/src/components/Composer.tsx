import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { codePoints } from '../format';
import { sendPost, userTyping } from '../actions/posts';
import { useStore } from '../state/use-store';
import { SendIcon } from './icons';

const DEFAULT_MAX = 16383;
/** Drafts survive switching channels (kept in memory for the page's life). */
const drafts = new Map<string, string>();

export function Composer({ channelId, rootId = '', label, placeholder }: { channelId: string; rootId?: string; label: string; placeholder: string }) {
  // Per user too: another account signing in on this tab never sees the previous one's drafts.
  const meId = useStore((s) => s.me?.id ?? '');
  const key = `${meId}:${channelId}:${rootId}`;
  const [text, setText] = useState(drafts.get(key) ?? '');
  const max = Number(useStore((s) => s.config.MaxPostSize)) || DEFAULT_MAX;
  const ref = useRef<HTMLTextAreaElement>(null);
  const id = useId();

  useEffect(() => {
    setText(drafts.get(key) ?? '');
    if (!rootId) ref.current?.focus();
  }, [key]);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 300)}px`;
  }, [text]);

  const count = codePoints(text);
  const tooLong = count > max;
  // The counter appears at 90% of the limit, as the limit approaches.
  const showCount = count >= Math.floor(max * 0.9);
  const canSend = text.trim() !== '' && !tooLong;

  const update = (value: string) => {
    setText(value);
    drafts.set(key, value);
    if (value.trim()) userTyping(channelId, rootId);
  };

  const send = () => {
    if (!canSend) return;
    const message = text;
    update('');
    void sendPost(channelId, message, rootId);
  };

  return (
    <form
      class={`composer${tooLong ? ' composer--too-long' : ''}`}
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <div class="composer__box">
        <textarea
          ref={ref}
          class="composer__input"
          rows={1}
          value={text}
          aria-label={label}
          placeholder={placeholder}
          aria-describedby={`${id}-hint${tooLong ? ` ${id}-error` : ''}`}
          aria-invalid={tooLong}
          onInput={(e) => update(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey && !e.isComposing) {
              e.preventDefault();
              send();
            }
          }}
        />
        <button type="submit" class="composer__send" aria-label="Send message" title="Send" disabled={!canSend}>
          <SendIcon size={18} />
        </button>
      </div>
      <div class="composer__footer">
        <span id={`${id}-hint`} class="hint">
          <kbd>Enter</kbd> to send, <kbd>Shift</kbd>+<kbd>Enter</kbd> for a new line
        </span>
        {showCount && (
          <span class={`composer__count${tooLong ? ' is-over' : ''}`} aria-live="polite">
            {count.toLocaleString()}/{max.toLocaleString()}
          </span>
        )}
      </div>
      {tooLong && (
        <p id={`${id}-error`} class="form-error" role="alert">
          Your message is too long: {count.toLocaleString()} of at most {max.toLocaleString()} characters.
        </p>
      )}
    </form>
  );
}
