import { Component, type ReactNode } from 'react';
import { parsePlatform } from '../../contract/platforms.js';
import { stringsFor } from '../i18n/index.js';
import { failureText } from '../screens/FailureScreen.js';

/**
 * Last resort when a screen cannot render (typically a lazy chunk that failed to download on a flaky connection):
 * the server-connection failure screen instead of a blank page. The error is logged.
 */
export class ErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override componentDidCatch(error: unknown): void {
    console.log('the page could not be shown', error);
  }

  override render(): ReactNode {
    if (!this.state.failed) return this.props.children;
    const platform = parsePlatform(new URLSearchParams(window.location.search).get('platform'));
    return (
      <main className="screen centered" id="fail-server">
        <h1>{failureText(stringsFor(platform), 'server', platform)}</h1>
      </main>
    );
  }
}
