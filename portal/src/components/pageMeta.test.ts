import { describe, expect, it } from 'vitest';
import { pageTitle, truncateDescription } from './pageMeta.ts';

describe('page metadata', () => {
  it("titles pages 'Title | Exploit Grid'", () => {
    expect(pageTitle('How to Play')).toBe('How to Play | Exploit Grid');
    expect(pageTitle()).toBe('Exploit Grid');
  });

  it('keeps descriptions of up to 160 characters as they are', () => {
    const text = 'x'.repeat(160);
    expect(truncateDescription(text)).toBe(text);
  });

  it('cuts longer descriptions to 157 characters plus an ellipsis', () => {
    const cut = truncateDescription('y'.repeat(161));
    expect(cut).toHaveLength(160);
    expect(cut).toBe(`${'y'.repeat(157)}...`);
  });

  it('collapses whitespace before measuring', () => {
    expect(truncateDescription('  a \n  b  ')).toBe('a b');
  });
});
