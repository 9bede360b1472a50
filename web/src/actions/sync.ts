import { dropChannel } from '../post-store';
import { appStore } from '../state/app-store';
import { refreshTeamChannels } from './channels';
import { loadThread } from './panels';
import { catchUp } from './posts';
import { loadTheme } from './theme';

/** After a new connection: refetch what events may have changed while none could arrive. */
export async function resync(): Promise<void> {
  const state = appStore.get();
  if (!state.me) return;
  const teamId = state.currentTeamId;
  // Lists of other channels are dropped: they are fetched afresh when opened.
  appStore.set((s) => {
    let posts = s.posts;
    for (const id of Object.keys(posts.channels)) if (id !== s.currentChannelId) posts = dropChannel(posts, id);
    return { posts };
  });
  const jobs: Promise<unknown>[] = [loadTheme()];
  if (teamId) jobs.push(refreshTeamChannels(teamId));
  const channelId = appStore.get().currentChannelId;
  if (channelId) jobs.push(catchUp(channelId));
  const rhs = appStore.get().rhs;
  if (rhs?.kind === 'thread') jobs.push(loadThread(rhs.rootId));
  await Promise.all(jobs);
}
