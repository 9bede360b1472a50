/**
 * A channel's URL name, checked as the server checks it (src/app/rules.ts isValidChannelName, Mattermost's
 * IsValidChannelIdentifier; test/web/channel-name.test.ts holds the two to the same answers), and the name suggested
 * for a display name (Mattermost's cleanUpUrlable). No DOM here: unit-tested in Node.
 */

export const CHANNEL_NAME_MAX = 64;
export const CHANNEL_DISPLAY_NAME_MAX = 64;
export const CHANNEL_PURPOSE_MAX = 250;
export const CHANNEL_HEADER_MAX = 1024;

const CHANNEL_NAME = /^[a-z0-9][a-z0-9_-]*$/;
// The shapes of direct (`<id>__<id>`) and group (40 hex digits) channel names are theirs alone.
const DM_NAME = /^[a-z0-9]{26}__[a-z0-9]{26}$/;
const GM_NAME = /^[a-f0-9]{40}$/;

export type ChannelNameProblem = 'length' | 'characters' | 'reserved';

export function channelNameProblem(name: string): ChannelNameProblem | null {
  if (name.length < 1 || name.length > CHANNEL_NAME_MAX) return 'length';
  if (!CHANNEL_NAME.test(name)) return 'characters';
  if (DM_NAME.test(name) || GM_NAME.test(name)) return 'reserved';
  return null;
}

export const CHANNEL_NAME_MESSAGES: Record<ChannelNameProblem, string> = {
  length: `The URL must be 1 to ${CHANNEL_NAME_MAX} characters long.`,
  characters: 'The URL may hold only lower-case letters, digits, dashes and underscores, and must start with a letter or digit.',
  reserved: 'This URL has the shape of a direct or group message channel. Choose another.',
};

/** The URL name suggested for a display name: accents dropped, lower case, every run of other characters one dash. */
export function suggestChannelName(displayName: string): string {
  return displayName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, CHANNEL_NAME_MAX)
    .replace(/-+$/, '');
}

/** The team's default channel: everyone is in it; it cannot be left or archived. */
export function isTownSquare(channel: { name: string }): boolean {
  return channel.name === 'town-square';
}
