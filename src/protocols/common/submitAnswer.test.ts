import { describe, expect, it, vi } from 'vitest';
import { submitAnswer } from './submitAnswer.js';

describe('submitAnswer', () => {
  it('sends nothing without an answer and only logs the reminder', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const send = vi.fn();
    expect(submitAnswer(null, send)).toBe(false);
    expect(send).not.toHaveBeenCalled();
    expect(log).toHaveBeenCalledWith('Please select an answer first');
    expect(submitAnswer('optionimageB', send)).toBe(true);
    expect(send).toHaveBeenCalledWith('optionimageB');
    log.mockRestore();
  });
});
