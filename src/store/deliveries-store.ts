import { newId } from '../lib/ids';
import { OUTGOING_DELIVERY, type DeliveryRecord, type IntegrationDelivery } from '../model';
import { Executor, Row, num, str } from './rows';

const TABLE = 'integration_deliveries';

function mapRow(r: Row): IntegrationDelivery {
  return {
    id: str(r.id),
    post_id: str(r.post_id),
    attempt: num(r.attempt),
    request_at: num(r.request_at),
    duration_ms: num(r.duration_ms),
    status_code: num(r.status_code),
    error: str(r.error),
  };
}

/** The row of one attempt, under `id`: its error cut to OUTGOING_DELIVERY.errorChars, its duration in whole ms. */
function toRow(row: DeliveryRecord, id: string): Row {
  return {
    id,
    integration_id: row.integration_id,
    kind: row.kind,
    post_id: row.post_id,
    attempt: row.attempt,
    request_at: row.request_at,
    duration_ms: Math.max(0, Math.round(row.duration_ms)),
    status_code: row.status_code,
    error: row.error.slice(0, OUTGOING_DELIVERY.errorChars),
    callback_url: row.callback_url ?? null,
  };
}

/** A delivery as stored, with what only the server reads (whose it is, the URL called). */
export type StoredDelivery = IntegrationDelivery & { integration_id: string; kind: string; callback_url: string };

/**
 * The delivery log of every kind of integration call (outgoing webhooks, slash commands, interactive actions): one
 * row per attempt, the last OUTGOING_DELIVERY.logSize per integration kept.
 */
export class DeliveriesStore {
  constructor(private readonly db: Executor) {}

  /** Records one attempt and prunes the integration's log to its newest entries. Returns the attempt's id. */
  async record(row: DeliveryRecord): Promise<string> {
    const [id] = await this.recordMany([row]);
    return id;
  }

  /**
   * Records attempts (of any integrations) and prunes each integration's log once: a batch of a busy hook's attempts
   * costs one insert and one prune, not one of each per attempt.
   */
  async recordMany(rows: DeliveryRecord[]): Promise<string[]> {
    const ids = rows.map((row) => row.id ?? newId());
    const records = rows.map((row, i) => toRow(row, ids[i]));
    for (let i = 0; i < records.length; i += 200) await this.db(TABLE).insert(records.slice(i, i + 200));
    for (const integrationId of new Set(rows.map((r) => r.integration_id))) await this.prune(integrationId);
    return ids;
  }

  /** Deletes the integration's entries older than its newest OUTGOING_DELIVERY.logSize (by the index). */
  private async prune(integrationId: string): Promise<void> {
    const edge = (await this.db(TABLE)
      .where('integration_id', integrationId)
      .orderBy([{ column: 'request_at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .offset(OUTGOING_DELIVERY.logSize)
      .limit(1)
      .select('request_at', 'id')
      .first()) as Row | undefined;
    if (!edge) return;
    const at = num(edge.request_at);
    await this.db(TABLE)
      .where('integration_id', integrationId)
      .where((w) => w.where('request_at', '<', at).orWhere((x) => x.where('request_at', at).where('id', '<=', str(edge.id))))
      .delete();
  }

  /** The integration's newest attempts first, at most `limit`. */
  async recent(integrationId: string, limit: number = OUTGOING_DELIVERY.logSize): Promise<IntegrationDelivery[]> {
    const rows = (await this.db(TABLE)
      .where('integration_id', integrationId)
      .orderBy([{ column: 'request_at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .limit(Math.min(limit, OUTGOING_DELIVERY.logSize))) as Row[];
    return rows.map(mapRow);
  }

  async get(id: string): Promise<StoredDelivery | undefined> {
    const r = (await this.db(TABLE).where({ id }).first()) as Row | undefined;
    return r ? { ...mapRow(r), integration_id: str(r.integration_id), kind: str(r.kind), callback_url: str(r.callback_url) } : undefined;
  }
}
