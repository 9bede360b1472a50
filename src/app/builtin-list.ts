// The built-in slash commands as lists and autocomplete show them (name, hint, description), in the order they are
// listed. What each one does is in builtin-commands.ts.

export interface BuiltinInfo {
  name: string;
  hint: string;
  description: string;
}

export const BUILTIN_COMMANDS: Record<string, BuiltinInfo> = {
  away: { name: 'away', hint: '', description: 'Set your status away' },
  code: { name: 'code', hint: '[text]', description: 'Display text as a code block' },
  dnd: { name: 'dnd', hint: '', description: 'Do not disturb disables desktop and mobile push notifications.' },
  echo: { name: 'echo', hint: "'message' [delay in seconds]", description: 'Echo back text from your account' },
  header: { name: 'header', hint: '[text]', description: 'Edit the channel header' },
  help: { name: 'help', hint: '', description: 'List the slash commands' },
  invite: { name: 'invite', hint: '@[username] ~[channel]', description: 'Invite a user to a channel' },
  join: { name: 'join', hint: '~[channel]', description: 'Join the open channel' },
  kick: { name: 'kick', hint: '@[username]', description: 'Remove a member from the channel' },
  leave: { name: 'leave', hint: '', description: 'Leave the current channel' },
  me: { name: 'me', hint: '[message]', description: 'Do an action' },
  msg: { name: 'message', hint: '@[username] [message]', description: 'Send Direct Message to a user' },
  offline: { name: 'offline', hint: '', description: 'Set your status offline' },
  online: { name: 'online', hint: '', description: 'Set your status online' },
  purpose: { name: 'purpose', hint: '[text]', description: 'Edit the channel purpose' },
  remove: { name: 'remove', hint: '@[username]', description: 'Remove a member from the channel' },
  rename: { name: 'rename', hint: '[text]', description: 'Rename the channel' },
  search: { name: 'search', hint: '[text]', description: 'Search text in messages' },
  shrug: { name: 'shrug', hint: '[message]', description: 'Adds ¯\\_(ツ)_/¯ to your message' },
};
