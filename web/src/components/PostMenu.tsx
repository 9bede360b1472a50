import { useEffect, useState } from 'preact/hooks';
import type { ClientPost } from '../post-store';
import { isSystemPost } from '../post-rows';
import { permalinkPath } from '../routes';
import { setPinned } from '../actions/pins';
import { markPostUnread } from '../actions/unread';
import { useStore } from '../state/use-store';
import { DropdownMenu } from './DropdownMenu';
import { DotsIcon, PinIcon } from './icons';
import '../styles/reactions.css';

/** Copies text: the Clipboard API, or (an insecure origin, a refused permission) a selected textarea and copy. */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'sr-only';
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

/** The post's "More actions" menu (Mattermost's dot menu): Mark as Unread, Pin to Channel / Unpin, Copy Link. */
export function PostMenu({ post, onError }: { post: ClientPost; onError: (message: string) => void }) {
  const team = useStore((s) => s.teams.find((t) => t.id === s.currentTeamId));
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(t);
  }, [copied]);
  const pinned = post.is_pinned === true;
  const canPin = !isSystemPost(post) && post.type !== 'system_ephemeral';
  return (
    <>
      <DropdownMenu
        class="post-menu"
        buttonClass="icon-button"
        menuLabel="More actions"
        button={
          <>
            <DotsIcon size={16} />
            <span class="sr-only">More actions</span>
          </>
        }
      >
        {(close) => (
          <>
            <button
              type="button"
              role="menuitem"
              class="menu__item"
              onClick={async () => {
                close();
                const err = await markPostUnread(post);
                if (err) onError(err);
              }}
            >
              Mark as Unread
            </button>
            {canPin && (
              <button
                type="button"
                role="menuitem"
                class="menu__item"
                onClick={async () => {
                  close();
                  const err = await setPinned(post.id, !pinned);
                  if (err) onError(err);
                }}
              >
                {pinned ? 'Unpin from Channel' : 'Pin to Channel'}
              </button>
            )}
            {team && (
              <button
                type="button"
                role="menuitem"
                class="menu__item"
                onClick={async () => {
                  close();
                  if (await copyText(`${location.origin}${permalinkPath(team.name, post.id)}`)) setCopied(true);
                  else onError('The link could not be copied.');
                }}
              >
                Copy Link
              </button>
            )}
          </>
        )}
      </DropdownMenu>
      <span class={copied ? 'post-menu__copied' : 'sr-only'} role="status">
        {copied ? 'Link copied' : ''}
      </span>
    </>
  );
}

/** "Pinned", beside the post's time (or above a continuation's message). */
export function PinnedTag() {
  return (
    <span class="post__pinned">
      <PinIcon size={12} /> Pinned
    </span>
  );
}
