/** Injected at build time by vite.config.ts (define): the version of package.json. */
declare const __APP_VERSION__: string;
