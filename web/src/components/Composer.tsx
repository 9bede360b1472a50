import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { codePoints } from '../format';
import { runCommand, type CommandFailure } from '../actions/commands';
import { sendPost, userTyping } from '../actions/posts';
import { isCommand, notFoundText } from '../command-text';
import { useCommandAutocomplete } from './CommandAutocomplete';
import { useStore } from '../state/use-store';
import { attachFiles, takeUploads } from '../actions/files';
import { draftKey, uploadsState } from '../state/files-search-state';
import { AttachButton, filesOf, UploadList } from './ComposerFiles';
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
  // A command that failed: its text is put back in the box and the reason shown under it while the text is unchanged.
  const [commandError, setCommandError] = useState<(CommandFailure & { text: string; key: string }) | undefined>();
  const keyRef = useRef(key);
  keyRef.current = key;

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
  // Attachments: sent once all are uploaded; a failed one stays listed (with its reason) and is left out.
  const files = uploadsState(useStore((s) => s.uploads[draftKey(channelId, rootId)]));
  const canSend = (text.trim() !== '' || files.ready > 0) && !tooLong && !files.busy;

  const update = (value: string) => {
    setText(value);
    drafts.set(key, value);
    if (value.trim()) userTyping(channelId, rootId);
  };

  const autocomplete = useCommandAutocomplete({ text, setText: (value) => update(value), channelId, rootId, inputRef: ref });
  const shownError = commandError && commandError.key === key && commandError.text === text ? commandError : undefined;

  const sendAsMessage = (message: string) => {
    setCommandError(undefined);
    update('');
    void sendPost(channelId, message, rootId, takeUploads(channelId, rootId));
  };

  const send = () => {
    if (!canSend) return;
    const message = text;
    // After "not found", sending the same text again posts it as a message (Mattermost's web app).
    if (!isCommand(message) || shownError?.notFound) return sendAsMessage(message);
    setCommandError(undefined);
    update('');
    const sentKey = key;
    void runCommand(channelId, message, rootId).then((failure) => {
      if (!failure || keyRef.current !== sentKey) return;
      // The text comes back (mattermost#5224), unless something new was typed meanwhile.
      if ((drafts.get(sentKey) ?? '') === '') update(message);
      setCommandError({ ...failure, text: message, key: sentKey });
    });
  };

  return (
    <form
      class={`composer${tooLong ? ' composer--too-long' : ''}`}
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <UploadList channelId={channelId} rootId={rootId} />
      <div class="composer__box">
        <textarea
          ref={ref}
          class="composer__input"
          rows={1}
          value={text}
          aria-label={label}
          placeholder={placeholder}
          aria-describedby={`${id}-hint${tooLong ? ` ${id}-error` : ''}${shownError ? ` ${id}-command-error` : ''}`}
          {...autocomplete.inputProps}
          aria-invalid={tooLong}
          onInput={(e) => update(e.currentTarget.value)}
          onPaste={(e) => {
            const pasted = filesOf(e.clipboardData);
            if (!pasted.length) return;
            e.preventDefault();
            attachFiles(channelId, rootId, pasted);
          }}
          onKeyDown={(e) => {
            if (autocomplete.onKeyDown(e)) return;
            if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey && !e.isComposing) {
              e.preventDefault();
              send();
            }
          }}
        />
        <AttachButton channelId={channelId} rootId={rootId} />
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
      {autocomplete.list}
      {shownError && (
        <p id={`${id}-command-error`} class="composer__command-error" role="alert">
          {shownError.notFound ? (
            <>
              {notFoundText(shownError.text)}{' '}
              <button type="button" class="link-button" onClick={() => sendAsMessage(shownError.text)}>
                Click here to send as a message.
              </button>
            </>
          ) : (
            shownError.message
          )}
        </p>
      )}
      {tooLong && (
        <p id={`${id}-error`} class="form-error" role="alert">
          Your message is too long: {count.toLocaleString()} of at most {max.toLocaleString()} characters.
        </p>
      )}
    </form>
  );
}
