import { useId, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { renderMarkdown } from '../markdown';
import { useStore } from '../state/use-store';

/**
 * Sanitised Markdown (see markdown.ts); the viewer's own mentions are marked. A long or heavily structured text is
 * shown as a bounded preview with a "Show more" button (as Mattermost collapses long posts), so what a page costs to
 * show does not depend on what its posters chose to send; the whole text is rendered only when asked for.
 */
export function Markdown({ text, class: cls }: { text: string; class?: string }) {
  const me = useStore((s) => s.me?.username ?? '');
  const [full, setFull] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const id = useId();
  const rendered = useMemo(() => renderMarkdown(text, me, full ? 'full' : 'preview'), [text, me, full]);
  useLayoutEffect(() => {
    ref.current?.replaceChildren(rendered.fragment);
  }, [rendered]);
  const toggle = full || rendered.truncated;
  return (
    <>
      <div ref={ref} id={toggle ? id : undefined} class={cls ? `markdown ${cls}` : 'markdown'} />
      {toggle && (
        <button type="button" class="link-button markdown-toggle" aria-expanded={full} aria-controls={id} onClick={() => setFull(!full)}>
          {full ? 'Show less' : 'Show more'}
        </button>
      )}
    </>
  );
}
