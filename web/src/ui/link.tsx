import type { ComponentChildren } from 'preact';

/**
 * An in-app link: a real `<a href>` (keyboard, new tab, copy link). preact-iso's LocationProvider
 * turns a plain click on one of our paths into an in-app navigation.
 */
export function Link(props: {
  href: string;
  class?: string;
  /** The page shown now (a nav link): aria-current="page". */
  current?: boolean;
  children: ComponentChildren;
}) {
  return (
    <a href={props.href} class={props.class} aria-current={props.current ? 'page' : undefined}>
      {props.children}
    </a>
  );
}
