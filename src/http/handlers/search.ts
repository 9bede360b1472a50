import { withoutTopLevelNulls } from '../nulls';
import { authed, ok } from '../operation';

// Results depend on who asks and change with every post: never cached (Mattermost sends the same header).
const NO_CACHE = { 'Cache-Control': 'no-cache, no-store, must-revalidate' };

export const SearchPosts = authed<'SearchPosts'>(async ({ path, body, session, app }) => ok(await app.search.searchPosts(path.team_id, withoutTopLevelNulls(body), session), { headers: NO_CACHE }));
