/**
 * The HTTP headers of the participant API, in a module without TypeBox: the web client imports them, and its first
 * bundle should not carry the schema library for three strings.
 */

/**
 * Header the page sends with its large posts (mouse logs, session logs): the server checks the session before it
 * reads the body. Required above 1 MiB.
 */
export const SESSION_TOKEN_HEADER = 'glimpse-session-token';

/** Header the web client sends with every rating/screening post; a retry reuses it, so no duplicate is stored. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** Header of the playlist call: the session token the page kept (anonymous participants resume with it). */
export const RESUME_TOKEN_HEADER = 'glimpse-resume-token';
