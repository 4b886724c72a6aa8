// Every stylesheet parses as plain CSS, with no rule inside another: a missing "}" once nested every
// rule after it under `.diff-mark` (CSS nesting made it valid CSS), and the A2UI surfaces and later
// rules silently lost their styles.
import postcss from 'postcss';
import { describe, expect, it } from 'vitest';

const sheets = import.meta.glob<string>('./**/*.css', { query: '?raw', import: 'default', eager: true });

describe('stylesheets', () => {
  it('are found', () => expect(Object.keys(sheets).length).toBeGreaterThan(2));
  for (const [file, css] of Object.entries(sheets)) {
    it(`${file} has no rule nested in another`, () => {
      const nested: string[] = [];
      postcss.parse(css).walkRules((rule) => {
        if (rule.parent?.type === 'rule') nested.push(`${(rule.parent as postcss.Rule).selector} { ${rule.selector} } (line ${rule.source?.start?.line})`);
      });
      expect(nested).toEqual([]);
    });
  }
});
