import { api, call } from '../api';

/**
 * DoPostAction: a click on an interactive action of a post (a button, or a menu's chosen value). The server calls the
 * integration and applies its answer; what changes arrives as events (post_edited, ephemeral_message).
 */
export function doPostAction(postId: string, actionId: string, selectedOption = ''): Promise<{ status: string; trigger_id: string }> {
  return call(
    api.POST('/api/v4/posts/{post_id}/actions/{action_id}', {
      params: { path: { post_id: postId, action_id: actionId } },
      body: selectedOption ? { selected_option: selectedOption } : {},
    }),
  );
}
