// One password check (scrypt) on a thread of the password pool (password-pool.ts, piscina). Plain JavaScript: a
// worker runs without tsx.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { scryptSync } from 'node:crypto';

// Yields the CPU to the event loop, like the JSON workers (json-worker.mjs): where a check and a participant's
// request share a core, the request goes first. Linux only; elsewhere the default priority.
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 10);
} catch {
  // not Linux
}

/** The key; null when the check waited past its deadline for a thread (marked late by the pool's queue: 503). */
export default function derive({ password, salt, keyBytes, cost, late }) {
  if (late) return null;
  return scryptSync(password, Buffer.from(salt), keyBytes, { ...cost, maxmem: 256 * cost.N * cost.r });
}
