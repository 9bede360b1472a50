// Answers the channel files share: a missing channel, and a field the channel rules refuse.
import { AppError } from '../model';

export const channelNotFound = () => AppError.notFound('app.channel.get.existing.app_error', 'Unable to find the existing channel.');

/** A channel field the rules refuse (Mattermost's Channel.IsValid ids). */
export const invalidChannelField = (field: string, message: string) => AppError.badRequest(`model.channel.is_valid.${field}.app_error`, message);
