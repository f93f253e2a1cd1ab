import type { SessionLogsBody } from '../../contract/payloads.js';
import { beaconSessionLogs, postSessionLogs } from './api.js';
import { fitForBeacon, type InteractionLogger } from './interactionLogger.js';

export interface LogsTransport {
  post: (body: SessionLogsBody) => Promise<boolean>;
  beacon: (body: SessionLogsBody) => boolean;
}

/**
 * Sends the session logs exactly once (SPEC §4): by a normal POST when the phase reaches Fail, FailEligibility or
 * Result, or by navigator.sendBeacon when the page is closed first. A failed POST leaves the door open for the
 * beacon; a POST still in flight when the page closes is not doubled by a beacon.
 */
export class SessionLogsSender {
  private state: 'idle' | 'sending' | 'sent' = 'idle';

  constructor(
    private readonly logger: InteractionLogger,
    private readonly sessionToken: () => string | null,
    private readonly transport: LogsTransport = { post: postSessionLogs, beacon: beaconSessionLogs },
  ) {}

  get status(): 'idle' | 'sending' | 'sent' {
    return this.state;
  }

  private body(): SessionLogsBody | null {
    const token = this.sessionToken();
    if (!token) {
      // No session yet (failure before the playlist answered): the server has nothing to attach the logs to.
      console.log('session logs not sent: no session token');
      return null;
    }
    return { sessionToken: token, ...this.logger.logs };
  }

  async send(): Promise<void> {
    if (this.state !== 'idle') return;
    const body = this.body();
    if (!body) return;
    this.state = 'sending';
    this.state = (await this.transport.post(body)) ? 'sent' : 'idle';
  }

  /** pagehide: the last chance; the beacon outlives the page. */
  sendOnClose(): void {
    if (this.state !== 'idle') return;
    const body = this.body();
    if (body && this.transport.beacon(fitForBeacon(body))) this.state = 'sent';
  }

  attach(win: Window = window): () => void {
    const onHide = () => this.sendOnClose();
    win.addEventListener('pagehide', onHide);
    return () => win.removeEventListener('pagehide', onHide);
  }
}
