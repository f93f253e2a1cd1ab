/** URL of a file under public/, honouring the base path the app is built for (vite `base`). */
export function publicAsset(path: string): string {
  const base = import.meta.env?.BASE_URL ?? '/';
  return `${base.endsWith('/') ? base : `${base}/`}${path}`;
}
