/** The HTTP status of a client-node error (ApiException's `code`), if it has one. */
export function statusOf(error: unknown): number | undefined {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'number')
    return error.code;
  return undefined;
}

/**
 * A short, loggable account of an error: client-node's ApiException carries the whole response
 * (headers, body) in its message; the API server's own Status message is what matters.
 */
export function describeError(error: unknown): { status?: number; message: string } {
  const status = statusOf(error);
  if (status !== undefined && error && typeof error === 'object' && 'body' in error) {
    try {
      const body = JSON.parse(String(error.body)) as { message?: string };
      if (body.message) return { status, message: body.message };
    } catch {
      // not JSON: fall through
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return { ...(status !== undefined ? { status } : {}), message: message.split('\n')[0]!.slice(0, 500) };
}
