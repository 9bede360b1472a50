import { useStore } from '../state/use-store';

/** "alice is typing…" under the list (or the thread), from the WebSocket's `typing` events. */
export function TypingIndicator({ typingKey }: { typingKey: string }) {
  const entries = useStore((s) => s.typing[typingKey]);
  const users = useStore((s) => s.users);
  const names = (entries ?? []).map((t) => users[t.userId]?.username).filter((n): n is string => !!n);
  let text = '';
  if (names.length === 1) text = `${names[0]} is typing…`;
  else if (names.length === 2) text = `${names[0]} and ${names[1]} are typing…`;
  else if (names.length > 2) text = 'Several people are typing…';
  return (
    <div class="typing" aria-live="polite">
      {text}
    </div>
  );
}
