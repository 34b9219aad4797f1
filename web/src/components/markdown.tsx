/**
 * Markdown text (descriptions, comments) rendered sanitized. The renderer (marked + DOMPurify, markdown-render.ts) is
 * a chunk of its own, loaded the first time a page shows Markdown: until it is in, the text shows as written.
 */
import { useEffect, useState } from 'preact/hooks';
import './markdown.css';

type Render = (text: string) => string;
let render: Render | null = null;
let loading: Promise<Render> | null = null;

/** The renderer (once; a failed load is tried again on the next call). */
export function loadMarkdown(): Promise<Render> {
  loading ??= import('./markdown-render.js').then(
    (m) => (render = m.renderMarkdown),
    (error: unknown) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}

export function Markdown({ text, class: cls }: { text: string; class?: string }) {
  const [ready, setReady] = useState(render !== null);
  useEffect(() => {
    if (ready) return;
    let live = true;
    // A failed load leaves the text as written (it is readable as it is).
    loadMarkdown().then(
      () => live && setReady(true),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  const classes = ['markdown', cls].filter(Boolean).join(' ');
  if (!ready || !render) return <div class={`${classes} plain`}>{text}</div>;
  return <div class={classes} dangerouslySetInnerHTML={{ __html: render(text) }} />;
}
