import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { pageTitle } from '../lib/brand.js';
import { useEmpresa } from './brand.js';
import { useLookAgainNotice } from './look-again.js';

const firstUrl = `${window.location.pathname}${window.location.search}`;
let navigated = false;

/** Whether the client has moved since the document loaded (then a new page takes focus). */
function movedSinceLoad(url: string): boolean {
  if (url !== firstUrl) navigated = true;
  return navigated;
}

/**
 * A page: its `<h1>` and content; the tab says `<page> · <empresa>`. After an in-app navigation focus moves to the heading, so a
 * screen reader announces the new page and the next Tab starts at its top; on the page the
 * document opened with, focus stays where the browser put it. Under the heading, what the page
 * found stale and read again (ui/look-again.ts `lookAgainHere`).
 */
export function Page(props: { title: string; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const { url } = useLocation();
  const empresa = useEmpresa()?.nombre ?? null;
  const notice = useLookAgainNotice(url);
  useEffect(() => {
    document.title = pageTitle(props.title, empresa);
  }, [props.title, empresa]);
  useEffect(() => {
    if (movedSinceLoad(url)) heading.current?.focus();
  }, [url]);
  return (
    <section class="page" aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1} ref={heading}>
        {props.title}
      </h1>
      {/* Present before it speaks, so a screen reader announces what it comes to say. */}
      <p class={notice ? 'hint' : 'visually-hidden'} role="status">
        {notice}
      </p>
      {props.children}
    </section>
  );
}
