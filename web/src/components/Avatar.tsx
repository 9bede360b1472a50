import { useState } from 'preact/hooks';
import { profileImageUrl } from '../api';
import { emojiFor } from '../emoji';
import { safeImageUrl } from '../markdown';
import type { Post } from '../post-store';
import { isFromWebhook } from '../post-rows';
import { useStore } from '../state/use-store';
import { BotIcon } from './icons';

// Dark enough for white initials to pass AA (≥ 4.5:1).
const COLOURS = ['#1f5fbf', '#6b3fa8', '#a3306a', '#0f6e5f', '#9a4d00', '#2f4f75', '#7a3b93', '#2d6a12', '#a12f2f', '#00667f'];

function colourFor(id: string): string {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0;
  return COLOURS[h % COLOURS.length];
}

/** Whether a webhook post's overrides are shown: when present, unless the server says overrides are off. */
export function useOverrides(): { name: boolean; icon: boolean } {
  const name = useStore((s) => s.config.EnablePostUsernameOverride);
  const icon = useStore((s) => s.config.EnablePostIconOverride);
  return { name: name !== 'false', icon: icon !== 'false' };
}

export function UserAvatar({ userId, size = 36 }: { userId: string; size?: number }) {
  const user = useStore((s) => s.users[userId]);
  const name = user?.username ?? '';
  // An uploaded picture (a positive update time; a reset one is negative): shown. Otherwise the initial, as before.
  const [failed, setFailed] = useState('');
  const picture = user && (user.last_picture_update ?? 0) > 0 ? profileImageUrl(user) : '';
  if (picture && failed !== picture) {
    return <img class="avatar avatar--image" src={picture} alt="" width={size} height={size} aria-hidden="true" onError={() => setFailed(picture)} />;
  }
  return (
    <span class="avatar" style={{ width: `${size}px`, height: `${size}px`, fontSize: `${Math.round(size * 0.42)}px`, backgroundColor: colourFor(userId) }} aria-hidden="true">
      {name.slice(0, 1).toUpperCase() || '?'}
    </span>
  );
}

/** The picture of a post: a webhook's icon (URL or emoji), the generic bot picture, or the author's initials. */
export function PostAvatar({ post, size = 36 }: { post: Post; size?: number }) {
  const overrides = useOverrides();
  // An icon URL that does not load falls back to the generic bot picture.
  const [broken, setBroken] = useState('');
  if (isFromWebhook(post)) {
    const emoji = overrides.icon && typeof post.props.override_icon_emoji === 'string' ? emojiFor(post.props.override_icon_emoji) : undefined;
    if (emoji) {
      return (
        <span class="avatar avatar--emoji" style={{ width: `${size}px`, height: `${size}px`, fontSize: `${Math.round(size * 0.7)}px` }} aria-hidden="true">
          {emoji}
        </span>
      );
    }
    const url = overrides.icon ? safeImageUrl(post.props.override_icon_url) : undefined;
    if (url && broken !== url) return <img class="avatar avatar--image" src={url} alt="" width={size} height={size} referrerpolicy="no-referrer" onError={() => setBroken(url)} />;
    return (
      <span class="avatar avatar--bot" style={{ width: `${size}px`, height: `${size}px` }} aria-hidden="true">
        <BotIcon size={Math.round(size * 0.6)} />
      </span>
    );
  }
  return <UserAvatar userId={post.user_id} size={size} />;
}

/** The name a post is shown under: a webhook's override name when there is one, else the author's username. */
export function usePostAuthor(post: Post): string {
  const overrides = useOverrides();
  const username = useStore((s) => s.users[post.user_id]?.username ?? '');
  if (isFromWebhook(post) && overrides.name && typeof post.props.override_username === 'string' && post.props.override_username.trim()) return post.props.override_username;
  return username || 'Someone';
}
