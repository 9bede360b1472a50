/**
 * The one error type that crosses layers. It carries Mattermost's dotted id and the HTTP status; the HTTP layer's
 * single writer turns it into the AppError JSON body. Anything else that reaches the writer is an internal error
 * and is answered with a generic 500 that leaks nothing.
 */
export class AppError extends Error {
  constructor(
    readonly id: string,
    message: string,
    readonly statusCode: number,
    readonly detailedError = '',
  ) {
    super(message);
    this.name = 'AppError';
  }

  static badRequest(id: string, message: string, detail = ''): AppError {
    return new AppError(id, message, 400, detail);
  }

  static invalidParam(name: string): AppError {
    return new AppError('api.context.invalid_param.app_error', `Invalid or missing ${name} parameter in request body or URL.`, 400);
  }

  static unauthorized(): AppError {
    return new AppError('api.context.session_expired.app_error', 'Invalid or expired session, please login again.', 401);
  }

  static forbidden(permission?: string): AppError {
    return new AppError(
      'api.context.permissions.app_error',
      'You do not have the appropriate permissions.',
      403,
      permission ? `permission=${permission}` : '',
    );
  }

  static notFound(id: string, message: string): AppError {
    return new AppError(id, message, 404);
  }

  /** A bounded line (password hashing, searches, thumbnails) is full: the caller may try again shortly. */
  static serverBusy(): AppError {
    return new AppError('api.context.server_busy.app_error', 'The server is busy. Please try again shortly.', 503);
  }

  static notImplemented(id: string, message: string): AppError {
    return new AppError(id, message, 501);
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
