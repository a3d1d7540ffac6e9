import { describe, expect, it } from 'vitest';
import { engineToolNames } from './tool-names.ts';

describe('engineToolNames', () => {
  it('keeps valid names, replaces characters providers refuse, applies the prefix', () => {
    expect(engineToolNames(['search', 'files.read/v2', 'ünïcode'], 'docs_')).toEqual(['docs_search', 'docs_files_read_v2', 'docs__n_code']);
  });

  it('cuts to 64 characters and keeps every name distinct', () => {
    const long = 'x'.repeat(100);
    const names = engineToolNames([long, long, 'a.b', 'a/b']);
    expect(names[0]).toBe('x'.repeat(64));
    expect(names[1]).toBe(`${'x'.repeat(62)}_2`);
    expect(names.slice(2)).toEqual(['a_b', 'a_b_2']);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });
});
