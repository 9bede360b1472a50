import { ConfigService } from '../config/config-service';
import type { Stores } from '../store';
import { ChannelsService } from './channels';
import type { Deps } from './deps';
import { PostsService } from './posts';
import { SystemService } from './system';
import { TeamsService } from './teams';
import { UsersService } from './users';
import { WebhooksService } from './webhooks';

/** The application: every service over one set of stores and one live config. */
export interface App {
  deps: Deps;
  system: SystemService;
  users: UsersService;
  teams: TeamsService;
  channels: ChannelsService;
  posts: PostsService;
  webhooks: WebhooksService;
}

export function createApp(stores: Stores, config: ConfigService, now: () => number = Date.now): App {
  const deps: Deps = { stores, config, now };
  const channels = new ChannelsService(deps);
  const posts = new PostsService(deps);
  return {
    deps,
    system: new SystemService(deps),
    users: new UsersService(deps),
    teams: new TeamsService(deps, channels),
    channels,
    posts,
    webhooks: new WebhooksService(deps, channels, posts),
  };
}
