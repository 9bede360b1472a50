import { AppError } from '../../model';
import type { Handler } from '../operation';

/**
 * GET /api/v4/websocket is served by the upgrade handler (../websocket.ts), before any request handler runs. A GET
 * that asks for no upgrade lands here: 400, as Mattermost answers a failed upgrade.
 */
export const ConnectWebSocket: Handler<'ConnectWebSocket'> = async () => {
  throw AppError.badRequest('api.web_socket.connect.upgrade.app_error', 'Failed to upgrade websocket connection: the request must be a WebSocket upgrade.');
};
