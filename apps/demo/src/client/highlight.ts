/**
 * The syntax highlighter, loaded on demand (a dynamic import from code-block.tsx): highlight.js's
 * core with the languages models write most, so the first page load carries none of it.
 * Unknown languages stay plain (no autodetection: it runs every grammar on every block).
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import 'highlight.js/styles/github.css';

const LANGUAGES = { bash, css, diff, go, javascript, json, python, rust, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/**
 * The code as highlighted HTML (highlight.js escapes the text), or undefined for a language it was
 * not given. Aliases work: ts, js, py, sh, html, yml.
 *
 * @example
 * highlightCode('const a = 1;', 'ts'); // '<span class="hljs-keyword">const</span> a = <span class="hljs-number">1</span>;'
 */
export function highlightCode(code: string, language: string): string | undefined {
  if (!hljs.getLanguage(language)) return undefined;
  return hljs.highlight(code, { language, ignoreIllegals: true }).value;
}
