import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { paging, type Paging } from '../lib/paging.js';
import { ErrorBox, Loading } from './status.js';
import type { Load } from './use-load.js';

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

/**
 * A paged list as the API answers it (`total`, `has_more`): loading, error with retry, `empty`
 * when the first page has nothing, else the items' cards under the summary and above the pager.
 */
export function PagedCards<T>(props: {
  state: Load<{ total: number; has_more: boolean }>;
  items: readonly T[];
  retry: () => void;
  pager: Pager;
  pageSize: number;
  /** The items in the plural, capitalised ("Recibos"), and the loading label. */
  noun: string;
  loading: string;
  empty: ComponentChildren;
  card: (item: T) => ComponentChildren;
}) {
  const { state, pager } = props;
  if (state.status === 'loading') return <Loading label={props.loading} />;
  if (state.status === 'error') return <ErrorBox message={state.message} onRetry={props.retry} />;
  if (props.items.length === 0 && pager.offset === 0) return <>{props.empty}</>;
  return (
    <PagedList
      label={`Páginas de ${props.noun.toLowerCase()}`}
      pager={pager}
      pages={paging(props.noun, props.pageSize, {
        offset: pager.offset,
        shown: props.items.length,
        total: state.data.total,
        hasMore: state.data.has_more,
      })}
    >
      <ul class="card-list">{props.items.map(props.card)}</ul>
    </PagedList>
  );
}
