import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from '../router.js';

/**
 * A page: its `<h1>` and content. After an in-app navigation focus moves to the heading, so a
 * screen reader announces the new page and the next Tab starts at its top.
 */
export function Page(props: { title: string; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const { count } = useLocation();
  useEffect(() => {
    document.title = `${props.title} · Portal de clientes`;
  }, [props.title]);
  useEffect(() => {
    if (count > 0) heading.current?.focus();
  }, [count]);
  return (
    <section class="page" aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1} ref={heading}>
        {props.title}
      </h1>
      {props.children}
    </section>
  );
}
