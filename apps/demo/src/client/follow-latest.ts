/**
 * The chat follows the conversation: while the reader is at the bottom, every change to the
 * message list (a new message, a streamed delta, a tool card, an error) scrolls it back to the
 * bottom. Scrolling up leaves it where the reader put it and reports `away`, so the page can offer
 * "Jump to latest"; scrolling back down (or jumping, or sending) follows again.
 */
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';

/** How close to the bottom (px) still counts as "at the bottom" when the reader scrolls down. */
const NEAR_BOTTOM = 80;

/**
 * Follows the newest content of `scroller`; `key` restarts it (a new thread starts at the bottom).
 *
 * @example
 * const { away, follow } = useFollowLatest(scroller, chat.store);
 * // on send: follow(); render a "Jump to latest" button while `away`
 */
export function useFollowLatest(scroller: RefObject<HTMLElement | null>, key: unknown) {
  const [away, setAway] = useState(false);
  const followRef = useRef<() => void>(() => {});

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is the restart signal (another thread), not read inside
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    let stuck = true;
    let last = el.scrollTop;
    let frame = 0;
    const setStuck = (value: boolean) => {
      stuck = value;
      setAway(!value);
    };
    const toBottom = () => {
      frame = 0;
      if (stuck) el.scrollTop = el.scrollHeight;
    };
    const schedule = () => {
      if (stuck && !frame) frame = requestAnimationFrame(toBottom);
    };
    // Only the reader moving up un-sticks. Recomputing "near the bottom" on every scroll event was
    // wrong (issue #29): the event that follows the chat's own scroll arrives a frame later, and a
    // block taller than NEAR_BOTTOM added in that frame made it read as the reader leaving.
    const onScroll = () => {
      const top = el.scrollTop;
      if (el.scrollHeight - top - el.clientHeight < NEAR_BOTTOM) setStuck(true);
      else if (top < last) setStuck(false);
      last = top;
    };
    // A wheel turned up un-sticks at once: its scroll event could otherwise come after a follow
    // already pulled the list back down, and the reader's move would be lost.
    const onWheel = (event: WheelEvent) => {
      if (event.deltaY < 0 && el.scrollHeight > el.clientHeight) setStuck(false);
    };
    // Every change of the rendered list (React commits, Markdown re-renders) is one observer callback.
    const observer = new MutationObserver(schedule);
    observer.observe(el, { childList: true, subtree: true, characterData: true });
    el.addEventListener('scroll', onScroll, { passive: true });
    el.addEventListener('wheel', onWheel, { passive: true });
    followRef.current = () => {
      setStuck(true);
      el.scrollTop = el.scrollHeight;
      schedule();
    };
    setStuck(true);
    el.scrollTop = el.scrollHeight;
    return () => {
      observer.disconnect();
      el.removeEventListener('scroll', onScroll);
      el.removeEventListener('wheel', onWheel);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [scroller, key]);

  /** Back to the bottom, following again (after a send, or from "Jump to latest"). */
  const follow = useCallback(() => followRef.current(), []);
  return { away, follow };
}
