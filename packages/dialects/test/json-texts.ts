/**
 * Texts a delta can carry, one of every family `JSON.stringify` writes differently (quotes, backslashes,
 * control characters, non-ASCII, a lone surrogate, text that looks like markup or JSON): for the
 * encoders' fast paths, which must write the same bytes as the whole object stringified.
 */
export const JSON_TEXTS = ['Hello', '', ' ', 'say "hi"', 'back\\slash', 'line\nbreak\r\ttab', '\u0000\u001f control', 'é ü 日本 🙂', 'lone \ud800 surrogate', '</script>', '{"json":1}', '\u2028\u2029'];
