import type { ErrorObject } from 'ajv';

export type BodyReading =
  | { outcome: 'ok'; fields: Record<string, unknown>; largeJson: Uint8Array }
  | { outcome: 'json'; message: string }
  | { outcome: 'text'; path: string }
  | { outcome: 'invalid'; errors: ErrorObject[] };

export interface BodyReaderConfig {
  schemas: Record<string, object>;
  keep: Record<string, string[]>;
  largeField: Record<string, string | null>;
}

export function badTextPath(value: unknown, path: string): string | null;
export function createBodyReader(config: BodyReaderConfig, compileNow?: string[]): (kind: string, bytes: Buffer) => BodyReading;
