// autocannon ships no types; this covers what run.ts uses.
declare module 'autocannon' {
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    '2xx': number;
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    requests?: Array<{
      method?: string;
      path?: string;
      setupRequest?: (request: Record<string, unknown>) => Record<string, unknown>;
      onResponse?: (status: number, body: string) => void;
    }>;
  }
  /** The run: a promise of its result, and an event emitter ('response': every answer, its status and time in ms). */
  interface Instance extends Promise<Result> {
    on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void): this;
  }
  export default function autocannon(options: Options): Instance;
}
