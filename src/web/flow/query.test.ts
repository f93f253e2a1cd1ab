import { describe, expect, it } from 'vitest';
import { parseQuery } from './query';

describe('parseQuery', () => {
  it('forwards a signed link\'s playlist choice with its signature (`cli link`), which the server needs to honour it', () => {
    expect(parseQuery('?platform=prolific&PROLIFIC_PID=P1&playlist_id=3&sig=abc_DEF-123').forwarded).toEqual({ platform: 'prolific', playlist_id: '3', sig: 'abc_DEF-123', PROLIFIC_PID: 'P1' });
  });
});
