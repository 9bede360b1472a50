import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { commandSuggestions, type CommandSuggestion } from '../actions/commands';
import { useStore } from '../state/use-store';

/**
 * Autocomplete of slash commands for a composer, as Mattermost's web app: while the text is "/" and one word, the
 * server's suggestions (ListCommandAutocompleteSuggestions: built-in and the team's custom commands, with hint
 * and description) in a listbox above the box. The box keeps focus (the combobox pattern: aria-controls,
 * aria-activedescendant); ↑/↓ move, Tab or Enter complete the trigger (followed by a space), Escape closes.
 */

export interface CommandAutocomplete {
  /** ARIA attributes for the text box. */
  inputProps: Record<string, string | boolean | undefined>;
  /** Handles the key when the list is open; true when it did (the composer must not act on it). */
  onKeyDown: (e: KeyboardEvent) => boolean;
  list: preact.JSX.Element | null;
}

/** Only the first word of a one-line text beginning with "/" is completed. */
function pretextOf(text: string): string | undefined {
  return /^\/\S*$/.test(text) ? text : undefined;
}

export function useCommandAutocomplete(opts: { text: string; setText: (value: string) => void; channelId: string; rootId: string; inputRef: { current: HTMLTextAreaElement | null } }): CommandAutocomplete {
  const { text, setText, channelId, rootId, inputRef } = opts;
  const teamId = useStore((s) => s.channels[channelId]?.team_id || s.currentTeamId || '');
  const [answered, setAnswered] = useState<CommandSuggestion[]>([]);
  const [selected, setSelected] = useState(0);
  // The text the list was closed for (Escape, or completed): it stays closed until the text changes.
  const [dismissed, setDismissed] = useState<string | undefined>();
  const asked = useRef(0);
  const id = useId();
  const pretext = pretextOf(text);

  useEffect(() => {
    const n = ++asked.current;
    setSelected(0);
    if (pretext === undefined || !teamId) {
      setAnswered([]);
      return;
    }
    void commandSuggestions(teamId, pretext, channelId, rootId).then((found) => {
      // An answer for older text is dropped.
      if (n !== asked.current) return;
      setAnswered(found);
      setSelected(0);
    });
  }, [pretext, teamId, channelId, rootId]);

  // Until the answer for the latest keystroke comes, the previous answer narrowed to what is typed now (the
  // commands of a longer prefix are among those of a shorter one), so Enter never picks a command no longer typed.
  const typed = (pretext ?? '').toLowerCase();
  const items = answered.filter((item) => `/${item.Complete}`.startsWith(typed));

  const open = pretext !== undefined && dismissed !== text && items.length > 0;
  const current = Math.min(selected, Math.max(0, items.length - 1));
  const optionId = (i: number) => `${id}-cmd-${i}`;

  const complete = (item: CommandSuggestion) => {
    const value = `/${item.Complete} `;
    setText(value);
    setDismissed(value);
    setAnswered([]);
    inputRef.current?.focus();
  };

  const onKeyDown = (e: KeyboardEvent): boolean => {
    if (!open || e.isComposing) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setSelected((i) => (Math.min(i, items.length - 1) + step + items.length) % items.length);
      return true;
    }
    if ((e.key === 'Enter' && !e.shiftKey) || (e.key === 'Tab' && !e.shiftKey)) {
      e.preventDefault();
      complete(items[current]);
      return true;
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      setDismissed(text);
      return true;
    }
    return false;
  };

  useEffect(() => {
    if (open) document.getElementById(optionId(current))?.scrollIntoView({ block: 'nearest' });
  }, [open, current]);

  const inputProps = {
    'aria-autocomplete': 'list',
    'aria-controls': open ? `${id}-commands` : undefined,
    'aria-activedescendant': open ? optionId(current) : undefined,
  };

  const list = open ? (
    // The arrow keys in the box (which keeps focus) scroll it to the selection; a long list is also a tab stop of its
    // own, so it can be scrolled from the keyboard without the box (WCAG 2.1.1). A click never takes focus from the box.
    <div class="command-list" id={`${id}-commands-box`} tabIndex={0} onMouseDown={(e) => e.preventDefault()}>
      <div class="command-list__header" aria-hidden="true">
        Commands
      </div>
      <ul role="listbox" id={`${id}-commands`} aria-label="Commands" class="command-list__options">
        {items.map((item, i) => (
          <li
            key={item.Complete}
            id={optionId(i)}
            role="option"
            aria-selected={i === current}
            class={`command-list__item${i === current ? ' is-selected' : ''}`}
            onMouseMove={() => setSelected(i)}
            onClick={() => complete(item)}
          >
            <span class="command-list__icon" aria-hidden="true">
              /
            </span>
            <span>
              <span class="command-list__title">
                /{item.Suggestion}
                {item.Hint && <span class="command-list__hint"> {item.Hint}</span>}
              </span>
              {item.Description && <span class="command-list__desc"> {item.Description}</span>}
            </span>
          </li>
        ))}
      </ul>
      <p class="sr-only" role="status">
        {`${items.length} ${items.length === 1 ? 'command' : 'commands'} suggested`}
      </p>
    </div>
  ) : null;

  return { inputProps, onKeyDown, list };
}
