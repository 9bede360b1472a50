// Interactive messages: a click on a post's button or menu (DoPostAction) calls the integration behind the action
// with Mattermost's request, signed with the secret of the integration that made the post, and applies its reply
// (`update` of the post, `ephemeral_text` for the clicker). The action's URL and context never leave the server:
// they are stored apart from the post (attachment-actions.ts, the post writer) and read only here.
import { Buffer } from 'node:buffer';
import { isValidId, newId } from '../lib/ids';
import { signatureHeaders } from '../lib/request-signing';
import { AppError, SERVER_PROPS, type Channel, type Post, type PostOrigin, type SealedActions, type Session } from '../model';
import { findAction } from './attachment-actions';
import { resealProps } from './action-props';
import { Authz } from './authz';
import type { Deps } from './deps';
import { sendEphemeral } from './ephemeral';
import type { SendOutbound } from './outbound';
import type { PostsService } from './posts';
import { archivedChannelError, messageLengthError, must, propsSizeError, withServerPropsOf } from './post-rules';
import type { Realtime } from './realtime';
import { convertSlackLinks } from './slack';

/** DoPostAction's body (Mattermost's DoPostActionRequest). */
export interface PostActionRequest {
  selected_option?: string;
  cookie?: string;
}

/** DoPostAction's answer: `status` for old clients, and the id the client may match a dialog against. */
export interface PostActionAnswer {
  status: 'OK';
  trigger_id: string;
}

/** What the integration is sent (Mattermost's PostActionIntegrationRequest, fields in its order). */
export interface ActionCall {
  user_id: string;
  user_name: string;
  channel_id: string;
  channel_name: string;
  team_id: string;
  team_domain: string;
  post_id: string;
  trigger_id: string;
  type: string;
  data_source: string;
  context?: Record<string, unknown>;
}

/** Props kept from the post on an `update` that brings its own (Mattermost's PostActionRetainPropKeys and more). */
const RETAINED = SERVER_PROPS;

const integrationError = (detail: string) =>
  AppError.badRequest('api.post.do_action.action_integration.app_error', 'Unable to complete the action: the integration failed.', detail);

const actionNotFound = () => AppError.notFound('api.post.do_action.action_id.app_error', 'Unable to find the action on the post.');

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export class PostActionsService {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly posts: PostsService,
    private readonly realtime: Realtime,
    private readonly send: SendOutbound,
  ) {
    this.authz = new Authz(deps);
  }

  /** DoPostAction: the click of `actionId` on `postId` by the session's user. */
  async doAction(postId: string, actionId: string, body: PostActionRequest, session: Session): Promise<PostActionAnswer> {
    const { stores, config } = this.deps;
    if (!isValidId(postId)) throw AppError.invalidParam('post_id');
    const post = await stores.posts.get(postId);
    if (!post || post.delete_at !== 0) {
      // Mattermost takes a cookie for posts it never stored (ephemeral ones); Parley's ephemeral posts carry no actions.
      if (body.cookie) throw integrationError('no stored post has this id, and action cookies are not used by this server');
      throw AppError.notFound('app.post.get.app_error', 'Unable to get the post.');
    }
    const channel = await stores.channels.get(post.channel_id);
    if (!channel) throw AppError.notFound('app.post.get.app_error', 'Unable to get the post.');
    await this.authz.requireChannel(session, channel, 'read_channel');
    const action = findAction(post.props, actionId);
    const sealed = action ? await stores.postActions.get(post.id) : undefined;
    const target = sealed?.actions[actionId];
    if (!action || !target) throw actionNotFound();
    const type = typeof action.type === 'string' && action.type !== '' ? action.type : 'button';
    const dataSource = typeof action.data_source === 'string' ? action.data_source : '';
    const selected = body.selected_option ?? '';
    if (type === 'select' && dataSource === '' && selected !== '') {
      // A static menu's value is one of its options: the integration never receives a value it did not offer.
      const options = Array.isArray(action.options) ? (action.options as unknown[]) : [];
      if (!options.some((o) => isObject(o) && o.value === selected)) throw AppError.invalidParam('selected_option');
    }

    const user = await stores.users.get(session.userId);
    if (!user) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
    const team = channel.team_id ? await stores.teams.get(channel.team_id) : undefined;
    const clientTriggerId = newId();
    const now = this.deps.now();
    let context = target.context;
    let callDataSource = '';
    if (type === 'select' && selected !== '') {
      context = { ...context, selected_option: selected };
      callDataSource = dataSource;
    }
    const call: ActionCall = {
      user_id: user.id,
      user_name: user.username,
      channel_id: channel.id,
      channel_name: channel.name,
      team_id: channel.team_id,
      team_domain: team?.name ?? '',
      post_id: post.id,
      // Mattermost's trigger id opens an interactive dialog; Parley has no dialogs, so it is only an opaque id the
      // integration may log (the client gets its first part back).
      trigger_id: Buffer.from(`${clientTriggerId}:${user.id}:${now}:`).toString('base64'),
      type,
      data_source: callDataSource,
      ...(context && Object.keys(context).length > 0 ? { context } : {}),
    };
    const raw = JSON.stringify(call);
    const secret = await this.secretOf(sealed.origin);
    const settings = config.get().ServiceSettings;
    const result = await this.send(
      {
        method: 'POST',
        url: target.url,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...(secret ? signatureHeaders(secret, raw, now) : {}) },
        body: raw,
        timeoutMs: settings.OutgoingIntegrationRequestsTimeout * 1000,
      },
      { allowList: settings.AllowedUntrustedInternalConnections },
    );
    const statusCode = result.ok ? result.status : 0;
    const failure = !result.ok ? `${result.kind}: ${result.message}` : result.status !== 200 ? `the integration answered ${result.status}` : '';
    await stores.deliveries
      .record({
        integration_id: sealed.origin?.id ?? post.id,
        kind: 'action',
        post_id: post.id,
        attempt: 1,
        request_at: now,
        duration_ms: this.deps.now() - now,
        status_code: statusCode,
        error: failure,
      })
      .catch((err: unknown) => this.deps.onBackgroundError(err, 'action delivery not logged'));
    if (!result.ok) throw integrationError(result.kind === 'refused' ? 'the address of the integration is not allowed' : `the integration could not be reached (${result.kind})`);
    if (result.status !== 200) throw integrationError(`the integration answered ${result.status}`);
    let reply: unknown = {};
    if (result.body.length > 0) {
      try {
        reply = JSON.parse(result.body.toString('utf8'));
      } catch {
        throw integrationError('the integration answered with invalid JSON');
      }
    }
    if (!isObject(reply)) throw integrationError('the integration answered with invalid JSON');

    if (reply.update !== undefined && reply.update !== null) await this.applyUpdate(post, channel, reply.update);
    if (typeof reply.ephemeral_text === 'string' && reply.ephemeral_text !== '') {
      const retained: Record<string, unknown> = {};
      for (const key of RETAINED) if (key in post.props) retained[key] = post.props[key];
      sendEphemeral(this.deps, user.id, {
        channel_id: channel.id,
        // In the post's thread, as Mattermost places it.
        root_id: post.root_id || post.id,
        message: reply.skip_slack_parsing === true ? reply.ephemeral_text : convertSlackLinks(reply.ephemeral_text, true),
        props: retained,
      });
    }
    return { status: 'OK', trigger_id: clientTriggerId };
  }

  /** The key a call is signed with: the secret of the integration that made the post (none: unsigned). */
  private async secretOf(origin: PostOrigin | undefined): Promise<string | undefined> {
    if (!origin) return undefined;
    const { stores } = this.deps;
    if (origin.kind === 'incoming_webhook') return (await stores.webhooks.get(origin.id))?.signing_secret || undefined;
    if (origin.kind === 'outgoing_webhook') return (await stores.outgoingHooks.get(origin.id))?.token || undefined;
    return (await stores.commands.get(origin.id))?.token || undefined;
  }

  /**
   * The integration's `update`, as Mattermost applies it: the post's message (absent: empty) and props replaced (no
   * props: kept), the server's own props, is_pinned and reactions kept, the id forced; then post_edited.
   */
  private async applyUpdate(post: Post, channel: Channel, update: unknown): Promise<void> {
    if (!isObject(update)) throw integrationError('the integration answered with an update that is not a post');
    const message = typeof update.message === 'string' ? update.message : '';
    must(messageLengthError(message, 'update'));
    const fields: Partial<Post> = { message };
    let sealed: { sealed?: SealedActions; changed: boolean } = { changed: false };
    if (isObject(update.props)) {
      const props = withServerPropsOf(post, update.props);
      must(propsSizeError(props, 'update'));
      const resealed = await resealProps(this.deps.stores, post, props, true);
      fields.props = resealed.props;
      sealed = resealed;
    }
    must(archivedChannelError(channel, 'update'));
    const { stores } = this.deps;
    const now = Math.max(this.deps.now(), post.update_at + 1, (await stores.posts.lastUpdateAt(post.channel_id)) + 1);
    fields.update_at = now;
    if (message !== post.message) fields.edit_at = now;
    await stores.transaction(async (tx) => {
      await tx.posts.update(post.id, fields);
      if (sealed.changed) await tx.postActions.replace(post.id, sealed.sealed);
    });
    const [updated] = await this.posts.withReplyStats([{ ...post, ...fields }]);
    this.realtime.postEdited(updated);
  }
}
