import type { components } from '../../generated/api';

/**
 * The contract's types the client works with (generated/api.d.ts). Types only, no DOM: state and logic modules import
 * them from here, so they can be unit-tested in Node without the REST client (api.ts re-exports them).
 */

export type AppErrorBody = components['schemas']['AppError'];
export type Channel = components['schemas']['Channel'];
export type ChannelMember = components['schemas']['ChannelMember'];
export type ClientConfig = components['schemas']['ClientConfig'];
export type Post = components['schemas']['Post'];
export type Preference = components['schemas']['Preference'];
export type PostListBody = components['schemas']['PostList'];
export type SlackAttachment = NonNullable<components['schemas']['SlackAttachment']>;
export type Team = components['schemas']['Team'];
export type User = components['schemas']['User'];
