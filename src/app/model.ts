// Domain records as the API shows them (Mattermost's JSON field names), plus the private parts only the store sees.

import type { components } from '../../generated/api';

export type StringMap = Record<string, string>;

export interface User {
  id: string;
  create_at: number;
  update_at: number;
  delete_at: number;
  username: string;
  auth_data: string;
  auth_service: string;
  email: string;
  email_verified: boolean;
  nickname: string;
  first_name: string;
  last_name: string;
  position: string;
  roles: string;
  allow_marketing: boolean;
  props: StringMap;
  notify_props: StringMap;
  last_password_update: number;
  last_picture_update: number;
  failed_attempts: number;
  locale: string;
  timezone: StringMap;
  mfa_active: boolean;
  last_activity_at: number;
  is_bot: boolean;
  bot_description: string;
  disable_welcome_email: boolean;
}

/** A user as stored: the API never sees `password` (a slow hash). */
export interface UserRecord extends User {
  password: string;
}

export interface Session {
  id: string;
  userId: string;
  roles: string;
  isAccessToken: boolean;
  /** What a browser session (cookie authentication) must send back in X-CSRF-Token; '' for access tokens. */
  csrfToken: string;
}

export interface UserAccessToken {
  id: string;
  token?: string;
  user_id: string;
  description: string;
  is_active: boolean;
  expires_at: number;
}

export interface Team {
  id: string;
  create_at: number;
  update_at: number;
  delete_at: number;
  display_name: string;
  name: string;
  description: string;
  email: string;
  type: 'O' | 'I';
  company_name: string;
  allowed_domains: string;
  invite_id: string;
  allow_open_invite: boolean;
  scheme_id: string | null;
  group_constrained: boolean | null;
  policy_id: string | null;
}

export interface TeamMember {
  team_id: string;
  user_id: string;
  roles: string;
  delete_at: number;
  scheme_guest: boolean;
  scheme_user: boolean;
  scheme_admin: boolean;
  explicit_roles: string;
}

export type ChannelType = 'O' | 'P' | 'D' | 'G';

export interface Channel {
  id: string;
  create_at: number;
  update_at: number;
  delete_at: number;
  team_id: string;
  type: ChannelType;
  display_name: string;
  name: string;
  header: string;
  purpose: string;
  last_post_at: number;
  last_root_post_at: number;
  total_msg_count: number;
  total_msg_count_root: number;
  extra_update_at: number;
  creator_id: string;
  scheme_id: string | null;
  props: Record<string, unknown> | null;
  group_constrained: boolean | null;
  shared: boolean | null;
  policy_id: string | null;
}

export interface ChannelMember {
  channel_id: string;
  user_id: string;
  roles: string;
  last_viewed_at: number;
  msg_count: number;
  mention_count: number;
  mention_count_root: number;
  urgent_mention_count: number;
  msg_count_root: number;
  notify_props: StringMap;
  last_update_at: number;
  scheme_guest: boolean;
  scheme_user: boolean;
  scheme_admin: boolean;
  explicit_roles: string;
}

export interface PostMetadata {
  priority?: { priority?: string; requested_ack?: boolean; persistent_notifications?: boolean };
  [key: string]: unknown;
}

export interface Post {
  id: string;
  create_at: number;
  update_at: number;
  edit_at: number;
  delete_at: number;
  is_pinned: boolean;
  user_id: string;
  channel_id: string;
  root_id: string;
  original_id: string;
  message: string;
  type: string;
  props: Record<string, unknown>;
  hashtags: string;
  file_ids: string[];
  pending_post_id: string;
  reply_count: number;
  last_reply_at: number;
  metadata: PostMetadata;
}

export interface PostList {
  order: string[];
  posts: Record<string, Post>;
  next_post_id: string;
  prev_post_id: string;
  has_next: boolean;
}

/** Exactly the spec's schema (every field required there): the record is the API's shape, so the spec defines it. */
export type IncomingWebhook = components['schemas']['IncomingWebhook'];
