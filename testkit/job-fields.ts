import type { JobFields } from '../src/contract/job.js';
import type { Protocol } from '../src/protocols/registry.js';

/** Valid Job fields of a protocol (no vitest import: bench/api uses it too). */
export function jobFields(protocol: Protocol, extra: Partial<JobFields> = {}): JobFields {
  return {
    question: 'Rate the quality',
    welcomeTitle: 'Welcome',
    welcomeMsg: '<p>Hello</p>',
    instructionTitle: 'Instructions',
    instructionMsg: '<p>Do your best</p>',
    subjectiveProtocol: protocol,
    targetScreenSizeHeight: 600,
    targetScreenSizeWidth: 800,
    maxScreenSizeHeight: 4320,
    maxScreenSizeWidth: 7680,
    requestFullScreen: 0,
    category_id: 1,
    backgroundColor: '#808080',
    ...extra,
  };
}
