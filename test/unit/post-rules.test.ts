// The post rules (src/app/post-rules.ts) as given/want tables, one row per path where the paths differ: what CreatePost
// refuses and what a webhook splits, drops or answers with its own id stand side by side.
import { AppError, POST_LIMITS, SERVER_PROPS } from '../../src/model';
import {
  archivedChannelError,
  emptyPayloadError,
  messageLengthError,
  parseAttachments,
  priorityOnReplyError,
  propsActionsError,
  propsFit,
  propsSizeError,
  rootError,
  rootIdError,
  typeError,
  webhookPriorityError,
  withServerPropsOf,
  withoutReservedProps,
  type PostPath,
} from '../../src/app/post-rules';

const CHANNEL = 'cccccccccccccccccccccccccc';
const OTHER = 'dddddddddddddddddddddddddd';
const ROOT = 'rrrrrrrrrrrrrrrrrrrrrrrrrr';

/** An error as a row wants it: its id and status, or undefined for none. */
function answer(err: AppError | undefined): [string, number] | undefined {
  return err ? [err.id, err.statusCode] : undefined;
}

describe('archivedChannelError', () => {
  test.each<[PostPath, number, [string, number] | undefined]>([
    ['create', 0, undefined],
    ['create', 1, ['api.post.create_post.can_not_post_to_deleted.error', 400]],
    ['webhook', 1, ['api.post.create_post.can_not_post_to_deleted.error', 400]],
    ['command', 1, ['api.post.create_post.can_not_post_to_deleted.error', 400]],
    // An outgoing webhook's answer to a channel archived since the call: as a channel that is gone.
    ['webhook_answer', 1, ['app.channel.get.existing.app_error', 404]],
    ['patch', 1, ['api.post.patch_post.can_not_update_post_in_deleted.error', 400]],
    ['update', 1, ['api.post.update_post.can_not_update_post_in_deleted.error', 400]],
    ['update', 0, undefined],
  ])('%s, delete_at %d → %j', (path, deleteAt, want) => {
    expect(answer(archivedChannelError({ delete_at: deleteAt }, path))).toEqual(want);
  });
});

describe('root rules', () => {
  test.each<[string, [string, number] | undefined]>([
    [ROOT, undefined],
    ['short', ['api.post.create_post.root_id.app_error', 400]],
    [ROOT.toUpperCase(), ['api.post.create_post.root_id.app_error', 400]],
  ])('root_id %j → %j', (rootId, want) => {
    expect(answer(rootIdError(rootId))).toEqual(want);
  });

  const alive = { delete_at: 0, channel_id: CHANNEL, root_id: '' };
  test.each<[string, { delete_at: number; channel_id: string; root_id: string } | undefined, [string, number] | undefined]>([
    ['a live root of the channel', alive, undefined],
    ['no such post', undefined, ['api.post.create_post.root_id.app_error', 400]],
    ['a deleted root', { ...alive, delete_at: 5 }, ['api.post.create_post.root_id.app_error', 400]],
    ['a root of another channel', { ...alive, channel_id: OTHER }, ['api.post.create_post.root_id.app_error', 400]],
    ['a reply (threads are one level deep)', { ...alive, root_id: ROOT }, ['api.post.create_post.root_id.app_error', 400]],
  ])('%s → %j', (_what, root, want) => {
    expect(answer(rootError(root, CHANNEL))).toEqual(want);
  });
});

describe('priority rules', () => {
  test.each<[string, [string, number] | undefined]>([
    ['', undefined],
    [ROOT, ['api.post.create_post.post_priority.reply_not_allowed', 400]],
  ])('priority on root_id %j → %j', (rootId, want) => {
    expect(answer(priorityOnReplyError(rootId))).toEqual(want);
  });

  test.each<[{ priority?: string | null } | undefined, [string, number] | undefined]>([
    [undefined, undefined],
    [{ priority: 'urgent' }, undefined],
    [{ priority: '' }, undefined],
    [{ priority: null }, ['api.context.invalid_param.app_error', 400]],
    [{}, ['api.context.invalid_param.app_error', 400]],
  ])('webhook priority %j → %j', (priority, want) => {
    expect(answer(webhookPriorityError(priority))).toEqual(want);
  });
});

describe('typeError', () => {
  const long = `custom_${'x'.repeat(POST_LIMITS.type)}`;
  test.each<['webhook' | 'webhook_answer' | 'command', string, [string, number] | undefined]>([
    ['webhook', '', undefined],
    ['webhook', '   ', undefined],
    ['webhook', 'custom_poll', undefined],
    ['webhook', 'system_join_channel', ['api.context.invalid_param.app_error', 400]],
    ['webhook', 'slack_attachment', ['api.context.invalid_param.app_error', 400]],
    ['webhook', long, ['api.context.invalid_param.app_error', 400]],
    ['webhook_answer', 'custom_poll', undefined],
    ['webhook_answer', 'system_join_channel', ['api.context.invalid_param.app_error', 400]],
    // Not bounded on this path (a background post): the difference the rule keeps.
    ['webhook_answer', long, undefined],
    // A command may set any type but a system one.
    ['command', '', undefined],
    ['command', 'slack_attachment', undefined],
    ['command', 'anything', undefined],
    ['command', 'system_join_channel', ['api.context.invalid_param.app_error', 400]],
  ])('%s, type %j → %j', (path, type, want) => {
    expect(answer(typeError(type, path))).toEqual(want);
  });

  test('the messages say which rule a webhook broke', () => {
    expect(typeError('system_x', 'webhook')?.message).toMatch(/must be blank or start with "custom_"/);
    expect(typeError(long, 'webhook')?.message).toBe(`Invalid post.type parameter: at most ${POST_LIMITS.type} characters.`);
    expect(typeError('system_x', 'webhook_answer')?.message).toBe('Invalid or missing post.type parameter in request body or URL.');
  });
});

describe('messageLengthError', () => {
  const max = 'é'.repeat(POST_LIMITS.messageRunes);
  const over = `${max}a`;
  // Code points, not UTF-16 units: an emoji is one.
  const emoji = '😀'.repeat(POST_LIMITS.messageRunes);
  test.each<[PostPath, string, string, [string, number] | undefined]>([
    ['create', 'the maximum', max, undefined],
    ['create', 'emoji at the maximum', emoji, undefined],
    ['create', 'one over', over, ['model.post.is_valid.message_length.app_error', 400]],
    ['command', 'one over', over, ['model.post.is_valid.message_length.app_error', 400]],
    ['patch', 'one over', over, ['model.post.is_valid.message_length.app_error', 400]],
    ['update', 'one over', over, ['model.post.is_valid.message_length.app_error', 400]],
    // Webhooks split a long message into several posts instead.
    ['webhook', 'one over', over, undefined],
    ['webhook_answer', 'one over', over, undefined],
  ])('%s, %s → %j', (path, _what, message, want) => {
    expect(answer(messageLengthError(message, path))).toEqual(want);
  });
});

describe('emptyPayloadError', () => {
  test.each<[string, unknown[], [string, number] | undefined]>([
    ['hi', [], undefined],
    ['', [{ text: 'a' }], undefined],
    ['', [], ['web.incoming_webhook.text.app_error', 400]],
  ])('text %j, %j → %j', (text, attachments, want) => {
    expect(answer(emptyPayloadError(text, attachments))).toEqual(want);
  });
});

describe('props', () => {
  const forged = { from_webhook: 'true', from_bot: 'true', override_username: 'ceo', override_icon_url: 'x', override_icon_emoji: 'y', webhook_display_name: 'z', attachments: [{ text: 'a' }], mine: 1 };
  test.each<['create' | 'command' | 'webhook' | 'webhook_answer', Record<string, unknown>]>([
    // The server's own props are dropped on every path; CreatePost and commands keep the client's attachments ...
    ['create', { attachments: [{ text: 'a' }], mine: 1 }],
    ['command', { attachments: [{ text: 'a' }], mine: 1 }],
    // ... webhooks take theirs from the payload's top level only.
    ['webhook', { mine: 1 }],
    ['webhook_answer', { mine: 1 }],
  ])('%s keeps %j of what it was given', (path, want) => {
    expect(withoutReservedProps(forged, path)).toEqual(want);
  });

  test('no props given is none', () => {
    expect(withoutReservedProps(undefined, 'create')).toEqual({});
    expect(withoutReservedProps(null, 'webhook')).toEqual({});
  });

  test.each<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]>([
    ['a webhook post keeps its identity', { from_webhook: 'true', override_username: 'bot' }, { from_webhook: 'false', a: 1 }, { from_webhook: 'true', override_username: 'bot', a: 1 }],
    ['an ordinary post gains none', {}, { from_webhook: 'true', from_bot: 'true', a: 1 }, { a: 1 }],
  ])('an edit: %s', (_what, had, given, want) => {
    expect(withServerPropsOf({ props: had }, given)).toEqual(want);
    expect(Object.keys(withServerPropsOf({ props: had }, given)).filter((k) => (SERVER_PROPS as readonly string[]).includes(k))).toEqual(Object.keys(had));
  });

  // A UTF-16 unit is up to 3 UTF-8 bytes: the bound is in bytes of JSON.
  const fits = { s: 'a'.repeat(POST_LIMITS.propsBytes - 8) };
  const tooBig = { s: 'a'.repeat(POST_LIMITS.propsBytes) };
  const multiByte = { s: 'é'.repeat(POST_LIMITS.propsBytes / 2) };
  test.each<[string, boolean, Record<string, unknown>]>([
    ['exactly the bound', true, fits],
    ['past it', false, tooBig],
    ['past it in bytes, not in characters', false, multiByte],
  ])('propsFit: %s → %s', (_what, want, props) => {
    expect(JSON.stringify(fits).length).toBe(POST_LIMITS.propsBytes);
    expect(propsFit(props)).toBe(want);
  });

  test.each<[PostPath, [string, number]]>([
    ['create', ['model.post.is_valid.props.app_error', 400]],
    ['command', ['model.post.is_valid.props.app_error', 400]],
    ['patch', ['model.post.is_valid.props.app_error', 400]],
    ['update', ['model.post.is_valid.props.app_error', 400]],
    ['webhook', ['web.incoming_webhook.split_props_length.app_error', 400]],
    ['webhook_answer', ['web.incoming_webhook.split_props_length.app_error', 400]],
  ])('propsSizeError: %s → %j', (path, want) => {
    expect(answer(propsSizeError(tooBig, path))).toEqual(want);
    expect(propsSizeError(fits, path)).toBeUndefined();
  });

  test.each<[string, [string, number] | undefined, Record<string, unknown>]>([
    ['no attachments', undefined, { a: 1 }],
    ['an attachment without actions', undefined, { attachments: [{ text: 'a' }] }],
    ['an action without its integration', ['api.context.invalid_param.app_error', 400], { attachments: [{ actions: [{ id: 'go', name: 'Go' }] }] }],
    ['an action with one', undefined, { attachments: [{ actions: [{ id: 'go', name: 'Go', integration: { url: 'https://example.com/x' } }] }] }],
  ])('propsActionsError: %s → %j', (_what, want, props) => {
    expect(answer(propsActionsError(props))).toEqual(want);
  });
});

describe('parseAttachments', () => {
  test.each<['webhook' | 'webhook_answer' | 'command', unknown, [string, number] | number]>([
    ['webhook', undefined, 0],
    ['webhook', [{ text: 'a' }, null], 1],
    ['webhook', 'not a list', ['web.incoming_webhook.parse.app_error', 400]],
    ['webhook_answer', [5], ['web.incoming_webhook.parse.app_error', 400]],
    // A command's bad attachments are a bad parameter, the reason in the message.
    ['command', 'not a list', ['api.context.invalid_param.app_error', 400]],
  ])('%s, %j → %j', (path, raw, want) => {
    const got = parseAttachments(raw, path);
    expect(got instanceof AppError ? answer(got) : got.length).toEqual(want);
  });

  test('where each path puts the reason', () => {
    const webhook = parseAttachments('x', 'webhook') as AppError;
    expect([webhook.message, webhook.detailedError]).toEqual(['Unable to parse incoming data.', 'attachments must be an array']);
    expect((parseAttachments('x', 'command') as AppError).message).toBe('attachments must be an array');
  });
});
