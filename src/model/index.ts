// The domain: types shared by the app and the store, derived from the spec where they are wire types, and the
// named limits. Imports nothing of the project but generated/ (the bottom layer).
export * from './app-error';
export * from './bots';
export * from './channels';
export * from './commands';
export * from './files';
export * from './limits';
export * from './outgoing-webhooks';
export * from './post-actions';
export * from './posts';
export * from './preferences';
export * from './props';
export * from './reactions';
export * from './roles';
export * from './search';
export * from './sidebar';
export * from './status';
export * from './store-errors';
export * from './teams';
export * from './threads';
export * from './users';
export * from './versioned';
export * from './webhooks';
export type { RequestBody, Schemas } from './wire';
