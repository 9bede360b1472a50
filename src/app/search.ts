import { Semaphore } from '../lib/semaphore';
import { AppError, SEARCH_LIMITS, type Channel, type PostSearchQuery, type PostSearchResults, type SearchPostsInput, type Session } from '../model';
import { Authz } from './authz';
import type { Deps } from './deps';
import type { PostsService } from './posts';
import { directChannelName } from './rules';
import { dateBounds, isEmptySearch, parseSearchTerms, searchLimitViolation } from './search-syntax';

const MAX_PER_PAGE = 200;

/**
 * Searches that run against the index at once, per process, and how many more may wait for a turn. A search can cost
 * far more than any other request (on MariaDB at a million posts, a word found only in channels the caller cannot
 * read takes seconds: see BENCHMARKS.md, "Post search"), and each one holds a database connection while it runs;
 * without a bound, a handful of such searches would take the whole pool and stall every other request. Past the
 * waiting line a search is told the server is busy (503), as a login is past the password-hashing line.
 */
export const CONCURRENT_SEARCHES = 4;
export const SEARCHES_WAITING = 16;

function noResults(): PostSearchResults {
  return { order: [], posts: {}, matches: null, next_post_id: '', prev_post_id: '', has_next: false, first_inaccessible_post_time: 0 };
}

/** Post search (SearchPosts), as Mattermost's database search answers it. */
export class SearchService {
  private readonly authz: Authz;
  private readonly searches = new Semaphore(CONCURRENT_SEARCHES, SEARCHES_WAITING);

  constructor(
    private readonly deps: Deps,
    private readonly posts: PostsService,
  ) {
    this.authz = new Authz(deps);
  }

  /**
   * The posts of the team's channels the caller is a member of, and of the caller's direct channels, that match the
   * search: Mattermost searches member channels only (a public channel the caller has not joined is not searched).
   */
  async searchPosts(teamId: string, input: SearchPostsInput, session: Session): Promise<PostSearchResults> {
    const { stores } = this.deps;
    await this.authz.requireTeam(session, teamId, 'view_team');
    if (input.terms === '' || input.terms.length > SEARCH_LIMITS.termsChars) throw AppError.invalidParam('terms');
    const parsed = parseSearchTerms(input.terms);
    const violation = searchLimitViolation(input.terms, parsed);
    if (violation) throw AppError.badRequest(violation.id, violation.message);
    const page = input.page ?? 0;
    const perPage = Math.min(input.per_page ?? 60, MAX_PER_PAGE);
    const offset = page * perPage;
    if (isEmptySearch(parsed) || perPage === 0 || offset >= SEARCH_LIMITS.maxResults) return noResults();
    const dates = dateBounds(parsed, input.time_zone_offset ?? 0);
    if (dates.empty) return noResults();

    let channels = await stores.channels.listForUser(teamId, session.userId, input.include_deleted_channels === true, 0);
    if (parsed.inChannels.length > 0) {
      const wanted = await this.resolveChannels(parsed.inChannels, channels, teamId, session.userId);
      channels = channels.filter((c) => wanted.has(c.id));
    }
    if (parsed.excludedChannels.length > 0) {
      const unwanted = await this.resolveChannels(parsed.excludedChannels, channels, teamId, session.userId);
      channels = channels.filter((c) => !unwanted.has(c.id));
    }
    if (channels.length === 0) return noResults();
    let userIds: string[] | null = null;
    if (parsed.fromUsers.length > 0) {
      userIds = (await stores.users.getByUsernames(parsed.fromUsers)).map((u) => u.id);
      if (userIds.length === 0) return noResults();
    }
    const excludedUserIds = parsed.excludedUsers.length > 0 ? (await stores.users.getByUsernames(parsed.excludedUsers)).map((u) => u.id) : [];

    // One more than the page, to learn whether another page follows; never past the deepest result served.
    const last = Math.min(offset + perPage, SEARCH_LIMITS.maxResults);
    const query: PostSearchQuery = {
      channelIds: channels.map((c) => c.id),
      userIds,
      excludedUserIds,
      terms: parsed.terms,
      excludedTerms: parsed.excludedTerms,
      orSearch: input.is_or_search === true,
      since: dates.since,
      until: dates.until,
      excludedRange: dates.excludedRange,
      offset,
      limit: last - offset + (last < SEARCH_LIMITS.maxResults ? 1 : 0),
    };
    const ids = await this.searches.run(() => stores.search.search(query), AppError.serverBusy);
    const hasNext = ids.length > last - offset;
    const pageIds = ids.slice(0, last - offset);
    // The index is current with every commit; a post deleted between the search and this read is left out.
    const byId = new Map((await stores.posts.getMany(pageIds)).filter((p) => p.delete_at === 0).map((p) => [p.id, p]));
    const found = pageIds.flatMap((id) => byId.get(id) ?? []);
    const results = noResults();
    results.order = found.map((p) => p.id);
    results.has_next = hasNext;
    for (const p of await this.posts.withReplyStats(found)) results.posts[p.id] = p;
    return results;
  }

  /**
   * The ids of the channels `in:` names among the caller's own: a channel name of the team (a leading `~` already
   * dropped), or `@username` for the direct channel with that user. Names that match nothing find nothing, as in
   * Mattermost (which would create the missing direct channel; a search here never writes).
   */
  private async resolveChannels(names: string[], channels: Channel[], teamId: string, userId: string): Promise<Set<string>> {
    const out = new Set<string>();
    const byName = new Map<string, Channel>();
    for (const c of channels) if (c.team_id === teamId || c.type === 'D') byName.set(c.name, c);
    const usernames = names.filter((n) => n.startsWith('@')).map((n) => n.slice(1));
    const users = usernames.length > 0 ? await this.deps.stores.users.getByUsernames(usernames) : [];
    for (const u of users) {
      const dm = byName.get(directChannelName(userId, u.id));
      if (dm?.type === 'D') out.add(dm.id);
    }
    for (const name of names) {
      const c = byName.get(name);
      if (c && c.type !== 'D') out.add(c.id);
    }
    return out;
  }
}
