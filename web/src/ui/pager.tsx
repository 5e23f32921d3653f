import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Paging } from '../lib/paging.js';

export type Pager = ReturnType<typeof usePaging>;

/**
 * The offset of a paged list, and its heading: after "Anteriores"/"Siguientes" focus goes there
 * once the new page shows (the buttons may vanish with the page they were on).
 */
export function usePaging() {
  const [offset, setOffset] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);
  return {
    offset,
    heading,
    /** The page asked for is shown. */
    arrived() {
      if (!moved.current) return;
      moved.current = false;
      heading.current?.focus();
    },
    /** A page chosen with the pager: focus follows it. */
    goTo(next: number) {
      moved.current = true;
      setOffset(next);
    },
    /** Back to the first page without moving focus (a new filter). */
    reset() {
      setOffset(0);
    },
  };
}

/** "Cupones 1 a 20 de 45", the items, then the page buttons when there is another page. */
export function PagedList(props: {
  pages: Paging;
  pager: Pager;
  /** Names the pager's nav ("Páginas de cupones"). */
  label: string;
  children: ComponentChildren;
}) {
  const { pages, pager } = props;
  useEffect(() => pager.arrived(), []);
  return (
    <>
      <p class="hint" role="status">
        {pages.summary}
      </p>
      {props.children}
      {(pages.previous !== null || pages.next !== null) && (
        <nav aria-label={props.label} class="actions pager">
          {pages.previous !== null && (
            <button
              type="button"
              class="button secondary"
              onClick={() => pager.goTo(pages.previous ?? 0)}
            >
              Anteriores
            </button>
          )}
          {pages.next !== null && (
            <button
              type="button"
              class="button secondary"
              onClick={() => pager.goTo(pages.next ?? 0)}
            >
              Siguientes
            </button>
          )}
        </nav>
      )}
    </>
  );
}
