import { useEffect, useRef } from 'react';

/**
 * Calls `submit` once `delayMs` after `armed` turns true, unless it turns false first or the view unmounts
 * (SPEC §4: "A selected level is auto-submitted after 5 s if the modal is still open").
 * `submit` may change between renders; the latest one is called.
 */
export function useAutoSubmit(armed: boolean, delayMs: number, submit: () => void): void {
  const latest = useRef(submit);
  latest.current = submit;
  useEffect(() => {
    if (!armed) return;
    const timer = setTimeout(() => latest.current(), delayMs);
    return () => clearTimeout(timer);
  }, [armed, delayMs]);
}
