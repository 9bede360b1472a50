import { useLayoutEffect, useRef } from 'preact/hooks';
import { renderMarkdown } from '../markdown';
import { useStore } from '../store';

/** Sanitised Markdown (see markdown.ts); the viewer's own mentions are marked. */
export function Markdown({ text, class: cls }: { text: string; class?: string }) {
  const me = useStore((s) => s.me?.username ?? '');
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    ref.current?.replaceChildren(renderMarkdown(text, me));
  }, [text, me]);
  return <div ref={ref} class={cls ? `markdown ${cls}` : 'markdown'} />;
}
