import type { ComponentChildren } from 'preact';
import { onLinkClick } from '../router.js';

/** An in-app link: a real `<a href>` (keyboard, new tab, copy link) that navigates in place. */
export function Link(props: {
  href: string;
  class?: string;
  /** The page shown now (a nav link): aria-current="page". */
  current?: boolean;
  children: ComponentChildren;
}) {
  return (
    <a
      href={props.href}
      class={props.class}
      onClick={onLinkClick}
      aria-current={props.current ? 'page' : undefined}
    >
      {props.children}
    </a>
  );
}
