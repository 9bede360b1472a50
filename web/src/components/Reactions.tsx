import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { reactionGlyph } from '../emoji-choices';
import type { ClientPost } from '../post-store';
import { groupReactions, reactionLabel, reactionsOf } from '../reactions';
import { addReaction, toggleReaction } from '../actions/reactions';
import { ensureUsers } from '../actions/users';
import { useStore } from '../state/use-store';
import { EmojiPicker } from './EmojiPicker';
import { SmileIcon } from './icons';
import '../styles/reactions.css';

/** A button opening the emoji picker; the emoji picked is the user's reaction to the post. */
export function AddReactionButton(props: { postId: string; class?: string; size?: number; onError: (message: string) => void }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  return (
    <>
      <button
        ref={button}
        type="button"
        class={props.class ?? 'icon-button'}
        aria-label="Add reaction"
        title="Add reaction"
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <SmileIcon size={props.size ?? 16} />
      </button>
      {open && (
        <EmojiPicker
          anchor={button.current}
          onClose={() => setOpen(false)}
          onPick={async (name) => {
            setOpen(false);
            button.current?.focus();
            const err = await addReaction(props.postId, name);
            if (err) props.onError(err);
          }}
        />
      )}
    </>
  );
}

/**
 * A post's reactions, one button per emoji with its count: a click adds the user's reaction or removes their own.
 * Who reacted is the button's name and shows on hover and on keyboard focus ("alice and bob reacted with :+1:").
 */
export function PostReactions({ post, onError }: { post: ClientPost; onError: (message: string) => void }) {
  const meId = useStore((s) => s.me?.id ?? '');
  const users = useStore((s) => s.users);
  const reactions = reactionsOf(post);
  const groups = useMemo(() => groupReactions(reactions, meId), [reactions, meId]);
  useEffect(() => {
    if (reactions.length) void ensureUsers(reactions.map((r) => r.user_id));
  }, [reactions]);
  if (groups.length === 0) return null;
  const nameOf = (id: string) => users[id]?.username ?? 'someone';
  return (
    <div class="reactions" role="group" aria-label="Reactions">
      {groups.map((g) => {
        const label = reactionLabel(g, nameOf, meId);
        const count = g.userIds.length;
        return (
          <span key={g.name} class="reaction-wrap">
            <button
              type="button"
              class={`reaction${g.mine ? ' reaction--mine' : ''}`}
              // The count is the button's visible text: its name holds it too (WCAG 2.5.3).
              aria-label={`${label}, ${count}`}
              aria-pressed={g.mine}
              data-emoji={g.name}
              onClick={async () => {
                const err = await toggleReaction(post.id, g.name, g.mine);
                if (err) onError(err);
              }}
            >
              <span class="reaction__emoji" aria-hidden="true">
                {reactionGlyph(g.name)}
              </span>
              <span class="reaction__count" aria-hidden="true">
                {count}
              </span>
            </button>
            <span class="reaction__tip" aria-hidden="true">
              {label}
            </span>
          </span>
        );
      })}
      <AddReactionButton postId={post.id} class="reaction reaction--add" size={16} onError={onError} />
    </div>
  );
}
