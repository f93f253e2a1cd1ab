import { expect, it } from 'vitest';
import { addUser, PASSWORD } from '../../testkit/console.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { json, useServer } from '../../testkit/server.js';
import { passwordPool } from '../../src/server/console/passwords.js';
import { ACCOUNT_BACKOFF } from '../../src/server/storage/sign-in-attempts.js';

/**
 * The sign-in locks cannot be turned against their owner (issue 34, item 2): the fourth probe locked a researcher
 * out of their account for good with 5 wrong passwords from each of 10 addresses, or from one IPv6 /64.
 */

const OWN_ADDRESS = '198.51.100.7';

describeEachDialect('sign-in locks', (dialect) => {
  // The per-address rate limit (20 a minute) is another defence; off here, so every attempt reaches the locks.
  const ctx = useServer(dialect, { rateLimits: false });
  const signIn = (password: string, remoteAddress: string, browserCookie?: string) =>
    ctx().app.inject({
      method: 'POST',
      url: '/console/api/sign-in',
      remoteAddress,
      headers: browserCookie ? { cookie: browserCookie } : {},
      payload: { email: 'lead@lab.example', password },
    });
  const browserCookieOf = (res: { headers: Record<string, unknown> }) =>
    ([res.headers['set-cookie']].flat() as string[]).find((c) => c.startsWith('glimpse_browser='))!.split(';')[0]!;

  /** 5 wrong passwords from each of 10 IPv4 addresses, 2 from each of 10 addresses of one IPv6 /64, 5 from each of 3 /64s of one /56. */
  async function attack(): Promise<void> {
    const addresses = [
      ...Array.from({ length: 10 }, (_, i) => `203.0.113.${i + 1}`),
      ...Array.from({ length: 10 }, (_, i) => `2001:db8:0:1::${(i + 1).toString(16)}`),
      ...[2, 3, 4].flatMap((net) => Array.from({ length: 5 }, (_, i) => `2001:db8:0:${net}::${i + 1}`)),
    ];
    for (const address of addresses) {
      for (let i = 0; i < (address.startsWith('2001:db8:0:1::') ? 2 : 5); i++) await signIn('wrong password', address);
    }
  }

  it('lets the researcher in from their own address and browser after 10 addresses and an IPv6 /64 attacked the account', async () => {
    await addUser(ctx().storage, 'lead@lab.example');
    const first = await signIn(PASSWORD, OWN_ADDRESS);
    expect(first.statusCode).toBe(200);
    const browser = browserCookieOf(first);
    expect(String([first.headers['set-cookie']].flat().find((c) => String(c).startsWith('glimpse_browser=')))).toMatch(
      /^glimpse_browser=[\w-]{43}; Max-Age=31536000; Path=\/console\/api\/sign-in; HttpOnly; SameSite=Strict$/,
    );

    await attack();
    const checked = passwordPool.derived;
    const res = await signIn(PASSWORD, OWN_ADDRESS, browser);
    expect(res.statusCode).toBe(200);
    expect(passwordPool.derived).toBe(checked + 1);
    // Same browser, after the attack, from another address (a laptop that moved): still known.
    expect((await signIn(PASSWORD, '192.0.2.200', browser)).statusCode).toBe(200);
  });

  it('slows an unknown browser with a clear 429 and Retry-After instead of refusing the right password for good', async () => {
    await addUser(ctx().storage, 'lead@lab.example');
    await attack();
    const slowed = await signIn(PASSWORD, OWN_ADDRESS);
    expect(slowed.statusCode).toBe(429);
    expect(json(slowed).error).toBe('SIGN_IN_SLOWED');
    expect(json(slowed).message).toContain('from a browser you signed in with before');
    const wait = Number(slowed.headers['retry-after']);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(ACCOUNT_BACKOFF.slowedIntervalMs / 1000);
    // Once the account's slot is free (its last check moved back in time), the right password gets in.
    await ctx().storage.db.updateTable('sign_in_attempts').set({ last_at: new Date(Date.now() - ACCOUNT_BACKOFF.slowedIntervalMs - 1000).toISOString() }).execute();
    const later = await signIn(PASSWORD, OWN_ADDRESS);
    expect(later.statusCode).toBe(200);
  });

  it('counts an IPv6 /64 as one network: its 5 attempts are shared by every address in it', async () => {
    await addUser(ctx().storage, 'lead@lab.example');
    for (let i = 0; i < 5; i++) expect((await signIn('wrong password', `2001:db8:5:6::${i + 1}`)).statusCode).toBe(401);
    const checked = passwordPool.derived;
    // Another address of the same /64, right password: refused unchecked, like a wrong one.
    const locked = await signIn(PASSWORD, '2001:db8:5:6:ffff::9');
    expect([locked.statusCode, json(locked).error]).toEqual([401, 'SIGN_IN_FAILED']);
    expect(passwordPool.derived).toBe(checked);
    // The next /64 of the same /56 is another network.
    expect((await signIn(PASSWORD, '2001:db8:5:7::1')).statusCode).toBe(200);
  });
});
