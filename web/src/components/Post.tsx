import { useRef, useState } from 'preact/hooks';
import { fullDateTime, timeOf } from '../format';
import { emojify } from '../markdown';
import type { ClientPost } from '../post-store';
import { isFromBot, isFromWebhook, isSystemPost } from '../post-rows';
import { dismissEphemeral } from '../actions/ephemeral';
import { openCard, openThread } from '../actions/panels';
import { deletePost, discardPost, editPost, retryPost } from '../actions/posts';
import { isSystemAdmin } from '../state/selectors';
import { useStore } from '../state/use-store';
import { Attachments } from './Attachments';
import { PostFiles } from './PostFiles';
import { usePostAuthor } from './Avatar';
import { ConfirmDialog } from './ConfirmDialog';
import { CloseIcon, EditIcon, InfoIcon, ReplyIcon, TrashIcon } from './icons';
import { Markdown } from './Markdown';
import { PinnedTag, PostMenu } from './PostMenu';
import { AddReactionButton, PostReactions } from './Reactions';
import { PostAvatarWithStatus } from './Status';
import { rememberOpener } from './focus';

export interface PostProps {
  post: ClientPost;
  continuation: boolean;
  replyContext: boolean;
  /** Inside the thread panel: no reply button, no reply count, no "Commented on". */
  inThread?: boolean;
  replyCount?: number;
}

function cardOf(post: ClientPost): string | undefined {
  const card = post.props?.card;
  return typeof card === 'string' && card.trim() !== '' ? card : undefined;
}

function ReplyContext({ rootId }: { rootId: string }) {
  const root = useStore((s) => s.posts.byId[rootId]);
  const name = usePostAuthorOrBlank(root);
  const plain = root ? emojify(root.message.replace(/[*_~`#>|]+/g, '').replace(/\s+/g, ' ').trim()) : '';
  const excerpt = Array.from(plain).slice(0, 80).join('');
  return (
    <div class="post__reply-context">
      <span>Commented on</span>
      <button type="button" class="link-button" onClick={(e) => { rememberOpener(e.currentTarget); openThread(rootId); }}>
        {root ? `${name}'s message: ${excerpt}${excerpt.length < plain.length ? '…' : ''}` : 'a message'}
      </button>
    </div>
  );
}

function usePostAuthorOrBlank(post: ClientPost | undefined): string {
  const placeholder = { user_id: '', props: {} } as unknown as ClientPost;
  const name = usePostAuthor(post ?? placeholder);
  return post ? name : '';
}

function EditBox({ post, onDone }: { post: ClientPost; onDone: () => void }) {
  const [text, setText] = useState(post.message);
  const [error, setError] = useState('');
  const save = async () => {
    if (text.trim() === '' || text === post.message) return onDone();
    const err = await editPost(post.id, text);
    if (err) setError(err);
    else onDone();
  };
  return (
    <div class="post__edit">
      <textarea
        class="textarea"
        aria-label="Edit message"
        value={text}
        rows={Math.min(10, text.split('\n').length + 1)}
        ref={(el) => el?.focus()}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            onDone();
          } else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            void save();
          }
        }}
      />
      {error && <p class="form-error" role="alert">{error}</p>}
      <div class="post__edit-actions">
        <span class="hint">Escape to cancel, Enter to save</span>
        <button type="button" class="btn btn--secondary btn--small" onClick={onDone}>Cancel</button>
        <button type="button" class="btn btn--primary btn--small" onClick={() => void save()}>Save</button>
      </div>
    </div>
  );
}

export function PostItem({ post, continuation, replyContext, inThread, replyCount = 0 }: PostProps) {
  const meId = useStore((s) => s.me?.id ?? '');
  const highlighted = useStore((s) => s.highlightPostId === post.id);
  const isAdmin = useStore(isSystemAdmin);
  const author = usePostAuthor(post);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState('');
  const actionsRef = useRef<HTMLDivElement>(null);
  const webhook = isFromWebhook(post);
  // The BOT badge: webhook posts, and posts by bot accounts (marked by the server, or by an author known to be a bot).
  const authorIsBot = useStore((s) => s.users[post.user_id]?.is_bot === true);
  const bot = webhook || isFromBot(post) || authorIsBot;
  const card = cardOf(post);
  const mine = post.user_id === meId;
  const local = post.pending || post.failed;
  // Shown to this user only, never stored: no reply, edit or delete, only dismissed.
  const ephemeral = post.type === 'system_ephemeral';
  const canEdit = mine && !webhook && !local && !isSystemPost(post);
  const canDelete = (mine || isAdmin) && !local;
  const classes = ['post'];
  if (continuation) classes.push('post--continuation');
  if (post.pending) classes.push('post--pending');
  if (post.failed) classes.push('post--failed');
  if (webhook) classes.push('post--webhook');
  if (ephemeral) classes.push('post--ephemeral');
  if (highlighted) classes.push('post--highlight');
  const shown = timeOf(post.create_at);
  const time = <time class="post__time" dateTime={new Date(post.create_at).toISOString()} title={fullDateTime(post.create_at)}>{shown}</time>;
  return (
    <article class={classes.join(' ')} data-post-id={post.id} aria-label={`${author}${bot ? ' (bot)' : ''}, ${shown}`}>
      <div class="post__gutter">{continuation ? <span class="post__hover-time">{time}</span> : <PostAvatarWithStatus post={post} />}</div>
      <div class="post__content">
        {!continuation && (
          <div class="post__header">
            <span class="post__author">{author}</span>
            {bot && <span class="bot-tag">BOT</span>}
            {time}
            {post.is_pinned && <PinnedTag />}
            {ephemeral && <span class="post__ephemeral">(Only visible to you)</span>}
            {card && (
              <button type="button" class="icon-button post__card-button" aria-label="Show card" title="Show card" onClick={(e) => { rememberOpener(e.currentTarget); openCard(post.id); }}>
                <InfoIcon size={16} />
              </button>
            )}
          </div>
        )}
        {continuation && post.is_pinned && <PinnedTag />}
        {replyContext && post.root_id && <ReplyContext rootId={post.root_id} />}
        {editing ? (
          <EditBox post={post} onDone={() => setEditing(false)} />
        ) : (
          post.message !== '' && <Markdown class="post__message" text={post.message} />
        )}
        {!editing && (post.edit_at ?? 0) > 0 && <span class="post__edited" title={fullDateTime(post.edit_at as number)}>Edited</span>}
        <PostFiles metadata={post.metadata} />
        <Attachments attachments={post.props?.attachments} postId={post.id} clickable={!local && post.type !== 'system_ephemeral'} />
        {!local && !ephemeral && <PostReactions post={post} onError={setError} />}
        {post.failed && (
          <div class="post__failed" role="alert">
            Message failed to send.{' '}
            <button type="button" class="link-button" onClick={() => retryPost(post.id)}>Retry</button>
            {' · '}
            <button type="button" class="link-button" onClick={() => discardPost(post.id)}>Delete</button>
          </div>
        )}
        {error && <p class="form-error" role="alert">{error}</p>}
        {!inThread && !post.root_id && replyCount > 0 && (
          <button type="button" class="post__replies" onClick={(e) => { rememberOpener(e.currentTarget); openThread(post.id); }}>
            <ReplyIcon size={14} /> {replyCount} {replyCount === 1 ? 'reply' : 'replies'}
          </button>
        )}
      </div>
      {ephemeral && (
        <div class="post__actions" role="group" aria-label="Message actions">
          <button type="button" class="icon-button" aria-label="Dismiss message" title="Dismiss" onClick={() => dismissEphemeral(post.id)}>
            <CloseIcon size={16} />
          </button>
        </div>
      )}
      {!local && !editing && !ephemeral && (
        <div class="post__actions" ref={actionsRef} role="group" aria-label="Message actions">
          <AddReactionButton postId={post.id} onError={setError} />
          {!inThread && (
            <button type="button" class="icon-button" aria-label="Reply" title="Reply" onClick={(e) => { rememberOpener(e.currentTarget); openThread(post.root_id || post.id); }}>
              <ReplyIcon size={16} />
            </button>
          )}
          {canEdit && (
            <button type="button" class="icon-button" aria-label="Edit message" title="Edit" onClick={() => setEditing(true)}>
              <EditIcon size={16} />
            </button>
          )}
          {canDelete && (
            <button type="button" class="icon-button" aria-label="Delete message" title="Delete" onClick={() => setConfirming(true)}>
              <TrashIcon size={16} />
            </button>
          )}
          <PostMenu post={post} onError={setError} />
        </div>
      )}
      {confirming && (
        <ConfirmDialog
          title="Delete message"
          body="Are you sure you want to delete this message? This cannot be undone."
          confirmLabel="Delete"
          onCancel={() => setConfirming(false)}
          onConfirm={async () => {
            setConfirming(false);
            const err = await deletePost(post.id);
            if (err) setError(err);
          }}
        />
      )}
    </article>
  );
}
