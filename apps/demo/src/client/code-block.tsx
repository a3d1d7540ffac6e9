/**
 * A fenced code block in an answer: a Copy button, and syntax highlighting from a highlighter that
 * is loaded the first time a block with a language shows (highlight.ts, its own chunk).
 */
import { type ComponentProps, type ReactNode, useEffect, useState } from 'react';
import type { ExtraProps } from 'react-markdown';

type Highlighter = typeof import('./highlight.ts');
let loading: Promise<Highlighter> | undefined;
/** One import for the page; a failure (an offline chunk) leaves code plain and is tried again next time. */
function loadHighlighter(): Promise<Highlighter> {
  loading ??= import('./highlight.ts').catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

interface HastNode {
  type: string;
  value?: string;
  tagName?: string;
  properties?: { className?: unknown };
  children?: HastNode[];
}

function textOf(node: HastNode | undefined): string {
  if (!node) return '';
  if (node.type === 'text') return node.value ?? '';
  return (node.children ?? []).map(textOf).join('');
}

/** The block's code and language, from react-markdown's tree: `<pre><code class="language-ts">`. */
function codeOf(node: HastNode | undefined): { code: string; language: string | undefined } {
  const inner = node?.children?.find((c) => c.tagName === 'code');
  const classes = inner?.properties?.className;
  const language = (Array.isArray(classes) ? classes : [])
    .map(String)
    .find((c) => c.startsWith('language-'))
    ?.slice('language-'.length);
  // Markdown ends a fenced block's text with a newline; copying it would add an empty line.
  return { code: textOf(inner ?? node).replace(/\n$/, ''), language };
}

function useHighlighted(code: string, language: string | undefined): string | undefined {
  const [html, setHtml] = useState<{ code: string; language: string; html: string | undefined } | undefined>(undefined);
  useEffect(() => {
    if (!language) return;
    let current = true;
    loadHighlighter().then(
      ({ highlightCode }) => {
        if (current) setHtml({ code, language, html: highlightCode(code, language) });
      },
      () => {},
    );
    return () => {
      current = false;
    };
  }, [code, language]);
  // Only the highlighting of this very text: while new text streams in, the plain text shows.
  return html && html.code === code && html.language === language ? html.html : undefined;
}

function CopyButton({ code }: { code: string }) {
  const [copied, setCopied] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (copied === undefined) return;
    const timer = setTimeout(() => setCopied(undefined), 2000);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <button
      type="button"
      className="copy-code"
      aria-label={copied === code ? 'Copied' : 'Copy code'}
      onClick={() => {
        void navigator.clipboard.writeText(code).then(() => setCopied(code));
      }}
    >
      {copied === code ? 'Copied' : 'Copy'}
    </button>
  );
}

/** react-markdown's `pre`: the block with its language, a Copy button and, once loaded, highlighting. */
export function CodeBlock({ node, children, ...props }: ComponentProps<'pre'> & ExtraProps): ReactNode {
  const { code, language } = codeOf(node as HastNode | undefined);
  const html = useHighlighted(code, language);
  return (
    <div className="code-block" data-testid="code-block" data-language={language}>
      <div className="code-head">
        <span className="code-language">{language ?? 'text'}</span>
        <CopyButton code={code} />
      </div>
      <pre {...props}>
        {html === undefined ? (
          children
        ) : (
          // highlight.js escapes the code it is given; the HTML holds only its <span class="hljs-…"> marks.
          // biome-ignore lint/security/noDangerouslySetInnerHtml: escaped by highlight.js (see above)
          <code className={`hljs language-${language}`} data-highlighted="yes" dangerouslySetInnerHTML={{ __html: html }} />
        )}
      </pre>
    </div>
  );
}
