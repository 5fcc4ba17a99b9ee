// API errors (Toxiproxy's api.go): every API failure is `{ error, status }`.

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
  toJSON(): { error: string; status: number } {
    return { error: this.message, status: this.status };
  }
}

export const Errors = {
  badRequestBody: (detail: string) => new ApiError(`bad request body: ${detail}`, 400),
  missingField: (detail: string) => new ApiError(`missing required field: ${detail}`, 400),
  proxyNotFound: () => new ApiError('proxy not found', 404),
  proxyAlreadyExists: () => new ApiError('proxy already exists', 409),
  invalidStream: () => new ApiError('stream was invalid, can be either upstream or downstream', 400),
  invalidToxicType: () => new ApiError('invalid toxic type', 400),
  toxicAlreadyExists: () => new ApiError('toxic already exists', 409),
  toxicNotFound: () => new ApiError('toxic not found', 404),
};

/** Any non-ApiError becomes a 500 carrying its message, as Toxiproxy's apiError does. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError(err instanceof Error ? err.message : String(err), 500);
}
