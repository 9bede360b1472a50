// The rules of interactive actions in message attachments (props.attachments[].actions[]): what an action may be
// (Mattermost's PostAction.IsValid, enforced rather than logged), and the split of every action into what clients
// see and what only the server keeps (its integration's URL and context, by action id). Pure: no I/O.
import { newId } from '../lib/ids';
import { ACTION_LIMITS, type ActionIntegration, type PostOrigin, type SealedActions } from '../model';

const STYLES = new Set(['default', 'primary', 'success', 'good', 'warning', 'danger']);
const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;
const DATA_SOURCES = new Set(['', 'users', 'channels']);
// Mattermost routes only letters and digits as an action id (`/actions/{action_id:[A-Za-z0-9]+}`): any other id
// could never be clicked there, so it is refused when posted instead of failing on every click.
const ACTION_ID = new RegExp(`^[A-Za-z0-9]{1,${ACTION_LIMITS.idChars}}$`);
/** What the server sets on an action for clients; never taken from an integration. */
const SERVER_FIELDS = ['cookie'];

type Json = Record<string, unknown>;

/** An action that breaks the rules; each path reports it with its own error id. */
export class ActionRuleError extends Error {}

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isHttpUrl(s: string): boolean {
  if (!/^https?:\/\//i.test(s)) return false;
  try {
    const url = new URL(s);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Where in the payload a problem is, for the error message. */
function at(i: number, j: number): string {
  return `attachments[${i}].actions[${j}]`;
}

/**
 * One action checked and normalised: null members dropped, `type` "button" when absent (Mattermost's clients draw an
 * untyped action as a button), server-only fields dropped. `integration` is checked when present; whether it must
 * be present is the caller's decision (an edit may leave it to the stored one).
 */
function normaliseAction(raw: unknown, where: string): Json {
  if (!isObject(raw)) throw new ActionRuleError(`${where} must be an object`);
  const action: Json = Object.fromEntries(Object.entries(raw).filter(([key, value]) => value !== null && !SERVER_FIELDS.includes(key)));
  const str = (key: string): string => {
    const v = action[key];
    if (v === undefined) return '';
    if (typeof v !== 'string') throw new ActionRuleError(`${where}.${key} must be a string`);
    return v;
  };
  const id = str('id');
  if (id !== '' && !ACTION_ID.test(id)) throw new ActionRuleError(`${where}.id must be 1 to ${ACTION_LIMITS.idChars} letters and digits`);
  if (str('name') === '') throw new ActionRuleError(`${where} must have a name`);
  const style = str('style');
  if (style !== '' && !STYLES.has(style) && !HEX_COLOUR.test(style)) {
    throw new ActionRuleError(`${where}.style must be one of default, primary, success, good, warning, danger or a hex colour`);
  }
  if (action.disabled !== undefined && typeof action.disabled !== 'boolean') throw new ActionRuleError(`${where}.disabled must be a boolean`);
  str('default_option');
  const type = str('type') || 'button';
  const dataSource = str('data_source');
  const options = action.options;
  if (options !== undefined && !Array.isArray(options)) throw new ActionRuleError(`${where}.options must be an array`);
  const hasOptions = Array.isArray(options) && options.length > 0;
  if (type === 'button') {
    if (hasOptions) throw new ActionRuleError(`${where}: a button must not have options`);
    if (dataSource !== '') throw new ActionRuleError(`${where}: a button must not have a data source`);
  } else if (type === 'select') {
    if (!DATA_SOURCES.has(dataSource)) throw new ActionRuleError(`${where}.data_source must be "users", "channels" or empty`);
    if (dataSource !== '' && hasOptions) throw new ActionRuleError(`${where}: a select cannot have both a data source and options`);
    if (dataSource === '' && !hasOptions) throw new ActionRuleError(`${where}: a select must have options or a data source`);
    if (hasOptions) {
      if (options.length > ACTION_LIMITS.options) throw new ActionRuleError(`${where}: at most ${ACTION_LIMITS.options} options`);
      action.options = options.map((o: unknown, k: number) => {
        if (!isObject(o) || typeof o.text !== 'string' || typeof o.value !== 'string' || o.text === '' || o.value === '') {
          throw new ActionRuleError(`${where}.options[${k}] must have a text and a value`);
        }
        return { text: o.text, value: o.value };
      });
    }
  } else {
    throw new ActionRuleError(`${where}.type must be "button" or "select"`);
  }
  action.type = type;
  if (action.integration !== undefined) action.integration = checkIntegration(action.integration, where);
  return action;
}

function checkIntegration(raw: unknown, where: string): ActionIntegration {
  if (!isObject(raw)) throw new ActionRuleError(`${where}.integration must be an object`);
  const url = raw.url;
  if (typeof url !== 'string' || url === '') throw new ActionRuleError(`${where} must have an integration URL`);
  // Mattermost also takes /plugins/... and rpc:// URLs, which reach its plugins; Parley has none.
  if (url.length > ACTION_LIMITS.urlChars || !isHttpUrl(url)) {
    throw new ActionRuleError(`${where}.integration.url must be an http or https URL of at most ${ACTION_LIMITS.urlChars} characters`);
  }
  const context = raw.context ?? {};
  if (!isObject(context)) throw new ActionRuleError(`${where}.integration.context must be an object`);
  return { url, context };
}

/**
 * The actions of normalised attachments, checked (every action needs an integration unless `known` holds its id: an
 * edit may send back the actions as clients saw them). Attachments are changed in place (their `actions` replaced by
 * the normalised ones). Throws ActionRuleError.
 */
export function checkAttachmentActions(attachments: Json[], known: ReadonlySet<string> = new Set()): void {
  let count = 0;
  const ids = new Set<string>();
  attachments.forEach((att, i) => {
    if (!isObject(att) || att.actions === undefined || att.actions === null) return;
    if (!Array.isArray(att.actions)) throw new ActionRuleError(`attachments[${i}].actions must be an array`);
    const out: Json[] = [];
    att.actions.forEach((raw: unknown, j: number) => {
      if (raw === null) return;
      const action = normaliseAction(raw, at(i, j));
      if (++count > ACTION_LIMITS.perPost) throw new ActionRuleError(`at most ${ACTION_LIMITS.perPost} actions in a post`);
      const id = typeof action.id === 'string' ? action.id : '';
      if (id !== '') {
        if (ids.has(id)) throw new ActionRuleError(`${at(i, j)}.id "${id}" is used twice`);
        ids.add(id);
      }
      if (action.integration === undefined && !(id !== '' && known.has(id))) throw new ActionRuleError(`${at(i, j)} must have integration settings`);
      out.push(action);
    });
    att.actions = out;
  });
}

/**
 * Checks the attachments of a post's props (CreatePost, edits), as the webhook path checks a payload's. Returns the
 * props unchanged when they hold no attachments.
 */
export function checkPropsActions(props: Json, known?: ReadonlySet<string>): void {
  const attachments = props.attachments;
  if (!Array.isArray(attachments)) return;
  checkAttachmentActions(attachments as Json[], known);
}

/** Whether props may hold actions (cheap: the common post has no attachments at all). */
export function mayHaveActions(props: Json): boolean {
  const attachments = props.attachments;
  return Array.isArray(attachments) && attachments.some((a) => isObject(a) && Array.isArray(a.actions) && a.actions.length > 0);
}

/** The action ids of props as stored (sealed). */
export function actionIds(props: Json): Set<string> {
  const ids = new Set<string>();
  if (!mayHaveActions(props)) return ids;
  for (const att of props.attachments as unknown[]) {
    if (!isObject(att) || !Array.isArray(att.actions)) continue;
    for (const a of att.actions) if (isObject(a) && typeof a.id === 'string') ids.add(a.id);
  }
  return ids;
}

/** The action with this id in stored props, as clients see it. */
export function findAction(props: Json, actionId: string): Json | undefined {
  if (!mayHaveActions(props)) return undefined;
  for (const att of props.attachments as unknown[]) {
    if (!isObject(att) || !Array.isArray(att.actions)) continue;
    for (const a of att.actions) if (isObject(a) && a.id === actionId) return a;
  }
  return undefined;
}

/**
 * Splits checked props into what is stored and served (every action with an id, none with its integration) and what
 * only the server keeps (each action's integration by id). An action without an integration keeps the one `previous`
 * holds for its id. Returns undefined (props untouched) when there are no actions.
 */
export function sealActions(props: Json, origin: PostOrigin | undefined, previous?: SealedActions): { props: Json; sealed: SealedActions } | undefined {
  if (!mayHaveActions(props)) return undefined;
  const actions: Record<string, ActionIntegration> = {};
  const attachments = (props.attachments as unknown[]).map((att) => {
    if (!isObject(att) || !Array.isArray(att.actions)) return att;
    return {
      ...att,
      actions: att.actions.map((a: unknown) => {
        if (!isObject(a)) return a;
        const { integration, ...visible } = a;
        const id = typeof visible.id === 'string' && visible.id !== '' ? visible.id : newId();
        const kept = isObject(integration) ? (integration as unknown as ActionIntegration) : previous?.actions[id];
        if (kept) actions[id] = { url: kept.url, context: kept.context ?? {} };
        return { ...visible, id };
      }),
    };
  });
  return { props: { ...props, attachments }, sealed: { ...(origin ? { origin } : {}), actions } };
}

/**
 * Props as a client may see them, for posts that are never stored (ephemeral ones): every action's integration
 * dropped (ids given). Such actions cannot be clicked: nothing on the server knows them.
 */
export function withoutIntegrations(props: Json): Json {
  return sealActions(props, undefined)?.props ?? props;
}
