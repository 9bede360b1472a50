import type { components } from '../../../generated/api';
import { api, ApiError, call } from '../api';
import { commandLine, gotoTarget, NOT_FOUND_ID } from '../command-text';
import { errorText } from '../error-text';
import { navigate } from '../router';
import { appStore } from '../state/app-store';
import { logout } from './session';

/** Slash commands from the composer (suggestions, running them) and the ephemeral posts they answer with. */

export type CommandSuggestion = components['schemas']['AutocompleteSuggestion'];

/**
 * The commands that complete what is typed (ListCommandAutocompleteSuggestions, as Mattermost's web app asks it):
 * built-in ones and the team's custom ones, each with its hint and description.
 */
export async function commandSuggestions(teamId: string, userInput: string, channelId: string, rootId: string): Promise<CommandSuggestion[]> {
  try {
    const query = { user_input: userInput.toLowerCase(), channel_id: channelId, ...(rootId ? { root_id: rootId } : {}) };
    return await call(api.GET('/api/v4/teams/{team_id}/commands/autocomplete_suggestions', { params: { path: { team_id: teamId }, query } }));
  } catch {
    return [];
  }
}

/** Why a command did not run, for the composer to show under the box (the text stays there). */
export interface CommandFailure {
  message: string;
  /** No command has that trigger: the text may be sent as a message instead. */
  notFound: boolean;
}

/**
 * Runs a command (ExecuteCommand) in a channel, or a thread, and follows its answer: `goto_location` is shown
 * (in the page when it is this site's); replies arrive as events (`posted`, `ephemeral_message`).
 */
export async function runCommand(channelId: string, message: string, rootId = ''): Promise<CommandFailure | undefined> {
  const state = appStore.get();
  const teamId = state.channels[channelId]?.team_id || state.currentTeamId || '';
  try {
    const response = await call(
      api.POST('/api/v4/commands/execute', { body: { channel_id: channelId, command: commandLine(message), ...(teamId ? { team_id: teamId } : {}), ...(rootId ? { root_id: rootId } : {}) } }),
    );
    const target = gotoTarget(response.goto_location ?? '', location.origin, appStore.get().config.SiteURL ?? '');
    if (target.kind === 'route') navigate(target.path);
    else if (target.kind === 'external') window.open(target.url, '_blank', 'noopener,noreferrer');
    else if (target.kind === 'logout') void logout();
    return undefined;
  } catch (err) {
    return { message: errorText(err), notFound: err instanceof ApiError && err.id === NOT_FOUND_ID };
  }
}
