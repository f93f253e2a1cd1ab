/** Retry an async call with exponential backoff. Pure apart from the injected sleep (unit tests pass a fake one). */
export interface RetryOptions {
  /** Total tries, the first included. */
  attempts: number;
  /** Delay before the 2nd try; doubled for each later one. */
  baseDelayMs: number;
  shouldRetry: (error: unknown) => boolean;
  sleep?: (ms: number) => Promise<void>;
  onRetry?: (error: unknown, attempt: number) => void;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function withRetry<T>(call: () => Promise<T>, options: RetryOptions): Promise<T> {
  const wait = options.sleep ?? sleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= options.attempts || !options.shouldRetry(error)) throw error;
      options.onRetry?.(error, attempt);
      await wait(options.baseDelayMs * 2 ** (attempt - 1));
    }
  }
}
