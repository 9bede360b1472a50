import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { searchEmoji } from '../emoji-choices';
import '../styles/reactions.css';

const COLUMNS = 8;
const WIDTH = 320;
const HEIGHT = 340;

/**
 * Mattermost's emoji picker, small: a search box (the combobox) over a grid of emoji (its listbox). Typing filters by
 * name and alias, the arrow keys move through the grid (Up/Down by a row), Enter picks, Escape closes; focus stays
 * in the search box and goes back to the opener on closing. Placed beside the opener, inside the window.
 */
export function EmojiPicker(props: { anchor: HTMLElement | null; onPick: (name: string) => void; onClose: () => void }) {
  const id = useId();
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const results = useMemo(() => searchEmoji(query), [query]);
  const ref = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const { anchor, onClose } = props;

  const close = () => {
    onClose();
    if (anchor?.isConnected) anchor.focus();
  };

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const r = anchor?.getBoundingClientRect();
    const below = r ? r.bottom + 4 : 80;
    const top = r && below + HEIGHT > window.innerHeight ? Math.max(8, r.top - HEIGHT - 4) : below;
    const left = Math.min(Math.max(8, (r?.right ?? WIDTH) - WIDTH), Math.max(8, window.innerWidth - WIDTH - 8));
    // CSSOM, not a style attribute: the page's CSP allows no inline styles.
    el.style.setProperty('top', `${Math.round(top)}px`);
    el.style.setProperty('left', `${Math.round(left)}px`);
    input.current?.focus();
  }, [anchor]);

  useEffect(() => {
    const onDoc = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node) && !anchor?.contains(e.target as Node)) onClose();
    };
    document.addEventListener('mousedown', onDoc);
    return () => document.removeEventListener('mousedown', onDoc);
  }, [anchor, onClose]);

  useEffect(() => {
    document.getElementById(`${id}-opt-${active}`)?.scrollIntoView({ block: 'nearest' });
  }, [active, id]);

  const current = results[Math.min(active, results.length - 1)];
  const move = (to: number) => setActive(Math.max(0, Math.min(results.length - 1, to)));
  return (
    <div
      ref={ref}
      class="emoji-picker"
      role="dialog"
      aria-label="Emoji picker"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          close();
        }
      }}
      onFocusOut={(e) => {
        const next = e.relatedTarget as Node | null;
        if (next && !ref.current?.contains(next)) onClose();
      }}
    >
      <input
        ref={input}
        class="input emoji-picker__search"
        type="text"
        role="combobox"
        aria-label="Search emojis"
        aria-expanded="true"
        aria-autocomplete="list"
        aria-controls={`${id}-list`}
        aria-activedescendant={current ? `${id}-opt-${results.indexOf(current)}` : undefined}
        placeholder="Search emojis"
        value={query}
        onInput={(e) => {
          setQuery(e.currentTarget.value);
          setActive(0);
        }}
        onKeyDown={(e) => {
          const keys: Record<string, number> = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: COLUMNS, ArrowUp: -COLUMNS };
          if (e.key in keys) {
            e.preventDefault();
            move(active + keys[e.key]);
          } else if (e.key === 'Enter') {
            e.preventDefault();
            if (current) props.onPick(current.name);
          } else if ((e.key === 'Home' || e.key === 'End') && e.ctrlKey) {
            e.preventDefault();
            move(e.key === 'Home' ? 0 : results.length - 1);
          }
        }}
      />
      <ul id={`${id}-list`} class="emoji-picker__grid" role="listbox" aria-label="Emojis">
        {results.map((c, i) => (
          <li
            key={c.name}
            id={`${id}-opt-${i}`}
            role="option"
            aria-selected={i === active}
            aria-label={c.name}
            title={`:${c.name}:`}
            class={`emoji-picker__emoji${i === active ? ' is-active' : ''}`}
            // The search box keeps the focus: a click picks without moving it.
            onMouseDown={(e) => e.preventDefault()}
            onMouseEnter={() => setActive(i)}
            onClick={() => props.onPick(c.name)}
          >
            <span aria-hidden="true">{c.glyph}</span>
          </li>
        ))}
      </ul>
      {results.length === 0 && <p class="emoji-picker__empty">No emojis found for “{query}”</p>}
      <div class="emoji-picker__preview" aria-live="polite">
        {current && (
          <>
            <span class="emoji-picker__preview-glyph" aria-hidden="true">
              {current.glyph}
            </span>
            <span>:{current.name}:</span>
          </>
        )}
      </div>
    </div>
  );
}
