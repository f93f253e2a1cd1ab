import { describe, expect, it } from 'vitest';
import { fontRuns, uncoveredCharacters } from './consent-pdf.js';

describe('fontRuns: each character in a font that has it', () => {
  it('splits a name mixing scripts into runs of one font', () => {
    expect(fontRuns('Иван 王小明 Łukasz はなこ 김서연')).toEqual([
      { font: 'sans', text: 'Иван ' },
      { font: 'han', text: '王小明' },
      { font: 'sans', text: ' Łukasz ' },
      { font: 'kana', text: 'はなこ' },
      { font: 'sans', text: ' ' },
      { font: 'hangul', text: '김서연' },
    ]);
  });

  it('keeps punctuation and spaces with the text around them when its font has them', () => {
    expect(fontRuns('王、小明')).toEqual([{ font: 'han', text: '王、小明' }]);
    expect(fontRuns('Dupré-Łaska, 12')).toEqual([{ font: 'sans', text: 'Dupré-Łaska, 12' }]);
  });

  it('keeps a combining mark with its base letter', () => {
    expect(fontRuns('Nguye\u0302\u0303n')).toEqual([{ font: 'sans', text: 'Nguye\u0302\u0303n' }]);
  });

  it.each([
    ['Simplified Chinese (GB 2312)', '张伟 王秀英 李娜 刘洋 陈静 杨磊 赵丽 黄勇'],
    ['Traditional Chinese (Big5)', '陳大文 張家豪 黃志明 劉淑芬 吳佩蓉 蔡宗翰'],
    ['Japanese kanji (JIS X 0208)', '佐藤 鈴木 高橋 渡邊 齋藤 伊藤 山﨑'.replace('﨑', '崎')],
    ['kana', 'さくら カタカナ ﾊﾝｶｸ'],
    ['Hangul (KS X 1001)', '김민준 이서연 박지호 최수아 정예준'],
    ['Greek', 'Γιώργος Παπαδόπουλος'],
    ['Vietnamese', 'Nguyễn Thị Minh Khai'],
  ])('covers %s', (_what, text) => {
    expect(uncoveredCharacters(text)).toEqual([]);
    expect(fontRuns(text).map((r) => r.text).join('')).toBe(text);
  });

  it('says what it does not cover: other scripts, rare Han and Hangul outside the national sets', () => {
    expect(uncoveredCharacters('محمد')).toEqual(['م', 'ح', 'د']);
    expect(uncoveredCharacters('𠮷野')).toEqual(['𠮷']); // CJK Extension B
    expect(uncoveredCharacters('똠')).toEqual(['똠']); // a Hangul syllable outside KS X 1001
  });
});
