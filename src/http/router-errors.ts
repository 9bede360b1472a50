import { AppError } from '../model';

/**
 * openapi-backend's handlers for requests that match no operation or lack a session, as AppErrors: shared by the
 * server and the mock so both answer unknown routes, wrong methods and missing tokens identically.
 */
export const routerErrorHandlers = {
  notFound: async (): Promise<never> => {
    throw AppError.notFound('api.context.404.app_error', 'Sorry, we could not find the page.');
  },
  methodNotAllowed: async (): Promise<never> => {
    throw new AppError('api.context.405.app_error', 'Method not allowed.', 405);
  },
  // The spec's `security` decides which operations need a session; a request without one lands here.
  unauthorizedHandler: async (): Promise<never> => {
    throw AppError.unauthorized();
  },
};
