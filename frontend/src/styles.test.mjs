// Every stylesheet parses as plain CSS, with no rule inside another: a missing "}" once nested every
// rule after it under `.diff-mark` (CSS nesting made it valid CSS), and the A2UI surfaces and later
// rules silently lost their styles. Plain JavaScript, read with node:fs: Vite hands a test an empty
// string for a CSS import, even ?raw, and the app's TypeScript has no Node types.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import postcss from 'postcss';
import { describe, expect, it } from 'vitest';

const src = dirname(fileURLToPath(import.meta.url));

function cssFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? cssFiles(p) : p.endsWith('.css') ? [p] : [];
  });
}

describe('stylesheets', () => {
  const files = cssFiles(src);
  it('are found, with their rules', () => {
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) expect(readFileSync(f, 'utf8').length).toBeGreaterThan(100);
  });
  for (const file of files) {
    it(`${relative(src, file)} parses, with no rule nested in another`, () => {
      const nested = [];
      postcss.parse(readFileSync(file, 'utf8'), { from: file }).walkRules((rule) => {
        if (rule.parent?.type === 'rule') nested.push(`${rule.parent.selector} { ${rule.selector} } (line ${rule.source?.start?.line})`);
      });
      expect(nested).toEqual([]);
    });
  }
});
