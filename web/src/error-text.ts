import { ApiError, NetworkError } from './api';

/** What to tell the person about a failed request. */
export function errorText(err: unknown): string {
  if (err instanceof NetworkError) return 'The server cannot be reached. Check your connection and try again.';
  if (err instanceof ApiError) return err.message;
  return 'Something went wrong.';
}
