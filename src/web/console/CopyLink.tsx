import { useState } from 'react';
import { useConsole } from './context.js';

/**
 * A participant link with a copy button. `short`: its path only, on one line cut with an ellipsis (the whole link
 * is its title and what is copied), so a table of studies stays readable on a 1366×768 screen.
 */
export function CopyLink({ label, url, short = false }: { label: string; url: string; short?: boolean }) {
  const { t } = useConsole();
  const [copied, setCopied] = useState(false);
  return (
    <span className={`copy-link${short ? ' short' : ''}`}>
      <span className="link-platform" translate="no">
        {label}
      </span>{' '}
      <code title={url}>{short ? url.replace(/^https?:\/\/[^/]+/, '') : url}</code>{' '}
      <button
        type="button"
        className="small secondary"
        aria-label={`${t.copy} ${label}`}
        onClick={() => void navigator.clipboard?.writeText(url).then(() => setCopied(true), () => setCopied(false))}
      >
        {copied ? t.copied : t.copy}
      </button>
    </span>
  );
}
