import type { RefObject } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ArrowDownIcon } from './icons';
import '../styles/reactions.css';

/** The "New messages" line above the first unread post. */
export function NewMessagesLine() {
  return (
    <div class="new-messages-line" role="separator" aria-label="New messages" data-new-messages="">
      <span>New messages</span>
    </div>
  );
}

/**
 * Whether the line is out of view above the reader (they scrolled past it, or the list opened at the bottom below
 * it): then the "Jump to new messages" control shows.
 */
export function useLineOutOfView(scroller: RefObject<HTMLDivElement | null>, present: boolean, key: string): boolean {
  const [above, setAbove] = useState(false);
  useEffect(() => {
    const root = scroller.current;
    const line = root?.querySelector('[data-new-messages]');
    if (!root || !line || !present || typeof IntersectionObserver === 'undefined') {
      setAbove(false);
      return;
    }
    const io = new IntersectionObserver(
      ([entry]) => {
        const r = entry.boundingClientRect;
        const top = entry.rootBounds?.top ?? 0;
        setAbove(!entry.isIntersecting && r.bottom <= top + 1);
      },
      { root },
    );
    io.observe(line);
    return () => io.disconnect();
  }, [scroller, present, key]);
  return above;
}

/** "Jump to new messages": scrolls the line into view (loading older pages first when the line is not loaded yet). */
export function JumpToNewMessages({ onJump }: { onJump: () => void }) {
  return (
    <button type="button" class="jump-to-new" onClick={onJump}>
      <ArrowDownIcon size={14} class="jump-to-new__icon" /> Jump to new messages
    </button>
  );
}
