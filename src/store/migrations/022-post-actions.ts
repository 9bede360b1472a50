import type { Knex } from 'knex';
import { newId } from '../../lib/ids';

// Interactive actions: what each action of a post calls (URL and context) and which integration made the post, kept
// out of the post's props so that no read of a post can carry them to a client; one row per post that has actions.
// Incoming webhooks made before this get the signing secret every new hook is created with.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('post_action_integrations', (t) => {
    t.string('post_id', 26).primary();
    // '' when no integration made the post (a user's or a bot's post through the API): its calls go unsigned.
    t.string('origin_kind', 32).notNullable().defaultTo('');
    t.string('origin_id', 26).notNullable().defaultTo('');
    // JSON: action id → {url, context}.
    t.text('actions').notNullable();
  });
  await sealStoredActions(knex);
  const unsigned = (await knex('incoming_webhooks').where('signing_secret', '').select('id')) as Array<{ id: string }>;
  for (const { id } of unsigned) {
    await knex('incoming_webhooks').where({ id, signing_secret: '' }).update({ signing_secret: newId() });
  }
}

/**
 * Posts written before this kept their actions' integrations in their props, where every reader saw them: moved out,
 * as the post writer now does for new posts (ids given to actions without one). Their origin is unknown: unsigned.
 * Written out here rather than shared with the app: a migration must do tomorrow what it does today.
 */
async function sealStoredActions(knex: Knex): Promise<void> {
  let after = '';
  for (;;) {
    const rows = (await knex('posts').where('id', '>', after).where('props', 'like', '%"integration"%').orderBy('id').limit(200).select('id', 'props')) as Array<{ id: string; props: string }>;
    if (rows.length === 0) return;
    for (const row of rows) {
      let props: unknown;
      try {
        props = JSON.parse(row.props);
      } catch {
        continue;
      }
      const attachments = isObject(props) && Array.isArray(props.attachments) ? (props.attachments as unknown[]) : [];
      const actions: Record<string, { url: string; context: Record<string, unknown> }> = {};
      let changed = false;
      for (const att of attachments) {
        if (!isObject(att) || !Array.isArray(att.actions)) continue;
        att.actions = att.actions.map((a: unknown) => {
          if (!isObject(a) || a.integration === undefined) return a;
          const { integration, ...visible } = a;
          const id = typeof visible.id === 'string' && visible.id !== '' ? visible.id : newId();
          if (isObject(integration) && typeof integration.url === 'string') {
            actions[id] = { url: integration.url, context: isObject(integration.context) ? integration.context : {} };
          }
          changed = true;
          return { ...visible, id };
        });
      }
      if (!changed) continue;
      await knex('posts').where({ id: row.id }).update({ props: JSON.stringify(props) });
      if (Object.keys(actions).length > 0) await knex('post_action_integrations').insert({ post_id: row.id, origin_kind: '', origin_id: '', actions: JSON.stringify(actions) });
    }
    after = rows[rows.length - 1].id;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('post_action_integrations');
  // The secrets stay: 017 made the column, and its rollback drops it.
}
