/**
 * Every vitest file's setup (vite.config.ts `test.setupFiles`): a test that fails while a virtual display is open
 * leaves that display's last captures, the play's last record and the error under test-results/virtual-display/
 * (testkit/virtualDisplay.ts keepRecentCaptures), which CI keeps with its other test results.
 */
import { afterEach } from 'vitest';
import { keepRecentCaptures } from './virtualDisplay';

afterEach(({ task }) => {
  if (task.result?.state !== 'fail') return;
  const kept = keepRecentCaptures(task.fullName ?? task.name, task.result.errors?.[0]);
  if (kept.length > 0) console.error(`virtual display: the failing check's last captures are in ${kept.join(', ')}`);
});
