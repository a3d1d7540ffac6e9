/**
 * The demo's icons, drawn inline as SVG (24x24, stroked in the text colour). Emoji were used
 * before and rendered as empty boxes on machines without an emoji font (issue #29). Each icon is
 * decorative (`aria-hidden`): the button that holds it carries the accessible name.
 */
import type { ReactNode } from 'react';

function Icon({ children, size = 16 }: { children: ReactNode; size?: number }) {
  return (
    <svg
      className="icon"
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {children}
    </svg>
  );
}

/**
 * A pencil: rename.
 *
 * @example
 * <button aria-label="Rename"><PencilIcon /></button>
 */
export function PencilIcon() {
  return (
    <Icon>
      <path d="M4 20h4L19 9l-4-4L4 16v4z" />
      <path d="M13.5 6.5l4 4" />
    </Icon>
  );
}

/**
 * A bin: delete.
 *
 * @example
 * <button aria-label="Delete"><TrashIcon /></button>
 */
export function TrashIcon() {
  return (
    <Icon>
      <path d="M4 7h16" />
      <path d="M10 11v6M14 11v6" />
      <path d="M6 7l1 13h10l1-13" />
      <path d="M9 7V4h6v3" />
    </Icon>
  );
}

/**
 * Three lines: open the thread list.
 *
 * @example
 * <button aria-label="Threads"><MenuIcon /></button>
 */
export function MenuIcon() {
  return (
    <Icon size={18}>
      <path d="M4 6h16M4 12h16M4 18h16" />
    </Icon>
  );
}

/**
 * A wrench: a tool call.
 *
 * @example
 * <span className="tool-icon"><ToolIcon /></span>
 */
export function ToolIcon() {
  return (
    <Icon size={14}>
      <path d="M14.7 6.3a4 4 0 0 0-5.4 5.2L3 17.8 6.2 21l6.3-6.3a4 4 0 0 0 5.2-5.4l-2.6 2.6-2.8-.7-.7-2.8 2.6-2.6z" />
    </Icon>
  );
}

/**
 * A paper clip: attach files.
 *
 * @example
 * <button aria-label="Attach files"><PaperclipIcon /></button>
 */
export function PaperclipIcon() {
  return (
    <Icon>
      <path d="M16 7v9a4 4 0 0 1-8 0V6a2.5 2.5 0 0 1 5 0v9.5a1 1 0 0 1-2 0V7" />
    </Icon>
  );
}
