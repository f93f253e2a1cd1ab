/** The app's version: package.json's, injected by the build (vite.config.ts define). */
export const APP_VERSION: string = __APP_VERSION__;

/**
 * SPEC §7: fetch /meta.json and compare its version with ours; a newer one clears the caches and reloads the
 * page from the server. A failed fetch is only logged. A session flag stops a reload loop when a stale copy is
 * still served after the reload.
 */

/** Numeric comparison of dotted versions: 1.10.0 > 1.9.9. */
export function isNewer(candidate: string, current: string): boolean {
  const parse = (v: string) => v.split('.').map((part) => Number.parseInt(part, 10) || 0);
  const a = parse(candidate);
  const b = parse(current);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return false;
}

const RELOAD_FLAG = 'glimpse-reloaded-for-version';

async function clearCaches(): Promise<void> {
  if (typeof caches !== 'undefined') {
    const names = await caches.keys();
    await Promise.all(names.map((name) => caches.delete(name)));
  }
  const registrations = (await navigator.serviceWorker?.getRegistrations?.()) ?? [];
  await Promise.all(registrations.map((r) => r.unregister()));
}

export async function checkVersion(win: Window = window, current = APP_VERSION): Promise<void> {
  try {
    const response = await fetch('/meta.json', { cache: 'no-store' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const { version } = (await response.json()) as { version?: unknown };
    if (typeof version !== 'string' || !isNewer(version, current)) return;
    if (win.sessionStorage.getItem(RELOAD_FLAG) === version) {
      console.log(`version ${version} is announced but ${current} is still served`);
      return;
    }
    win.sessionStorage.setItem(RELOAD_FLAG, version);
    await clearCaches();
    win.location.reload();
  } catch (error) {
    console.log('version check failed', error);
  }
}
