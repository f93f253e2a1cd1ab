import { describe, expect, it, vi } from 'vitest';
import { parseQuery } from '../flow/query.js';
import { mturkSubmission, mturkSubmitUrl } from './mturkSubmit.js';

describe('mturkSubmitUrl (turkSubmitTo must be an https MTurk origin)', () => {
  it('accepts the production and sandbox origins, with or without a trailing slash', () => {
    expect(mturkSubmitUrl('https://www.mturk.com')).toBe('https://www.mturk.com/mturk/externalSubmit');
    expect(mturkSubmitUrl('https://workersandbox.mturk.com')).toBe('https://workersandbox.mturk.com/mturk/externalSubmit');
    expect(mturkSubmitUrl('https://workersandbox.mturk.com/')).toBe('https://workersandbox.mturk.com/mturk/externalSubmit');
    expect(mturkSubmitUrl('https://WWW.MTurk.com')).toBe('https://www.mturk.com/mturk/externalSubmit');
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['not a URL', 'www.mturk.com'],
    ['plain http', 'http://www.mturk.com'],
    ['another site', 'https://evil.example'],
    ['a look-alike subdomain', 'https://www.mturk.com.evil.example'],
    ['a look-alike suffix', 'https://evilmturk.com'],
    ['the bare domain', 'https://mturk.com'],
    ['another mturk host', 'https://requester.mturk.com'],
    ['a trailing-dot host', 'https://www.mturk.com.'],
    ['credentials', 'https://user:pass@www.mturk.com'],
    ['a user name before another host', 'https://www.mturk.com@evil.example'],
    ['an explicit port', 'https://www.mturk.com:8443'],
    ['a path', 'https://www.mturk.com/somewhere/else'],
    ['a query', 'https://www.mturk.com/?next=https://evil.example'],
    ['a fragment', 'https://www.mturk.com/#x'],
    ['a script URL', 'javascript:alert(1)//www.mturk.com'],
    ['a data URL', 'data:text/html,https://www.mturk.com'],
    ['a protocol-relative URL', '//www.mturk.com'],
  ])('refuses %s', (_, value) => {
    expect(mturkSubmitUrl(value)).toBeNull();
  });
});

describe('mturkSubmission (when the end screen offers Submit HIT)', () => {
  const accepted = '?platform=mturk&assignmentId=A1&hitId=H1&workerId=W1&turkSubmitTo=https%3A%2F%2Fworkersandbox.mturk.com';

  it('an accepted assignment on platform mturk posts its assignment id to the sandbox', () => {
    expect(mturkSubmission(parseQuery(accepted))).toEqual({ action: 'https://workersandbox.mturk.com/mturk/externalSubmit', assignmentId: 'A1' });
  });

  it('nothing on another platform, in a preview, or without an assignment id', () => {
    expect(mturkSubmission(parseQuery(accepted.replace('platform=mturk', 'platform=prolific')))).toBeNull();
    expect(mturkSubmission(parseQuery(accepted.replace('assignmentId=A1', 'assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE')))).toBeNull();
    expect(mturkSubmission(parseQuery(accepted.replace('assignmentId=A1&', '')))).toBeNull();
  });

  it('nothing, and a console line, for a turkSubmitTo that is not MTurk', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    expect(mturkSubmission(parseQuery(accepted.replace('workersandbox.mturk.com', 'evil.example')))).toBeNull();
    expect(log).toHaveBeenCalledWith(expect.stringContaining('turkSubmitTo'), 'https://evil.example');
    log.mockRestore();
  });
});
