/**
 * Markdown to safe HTML (issue 41), the chunk that markdown.tsx loads when a page first shows Markdown: `marked` (GFM,
 * line breaks as written) renders, DOMPurify keeps only the tags and attributes below. Raw HTML in the text is shown
 * as text, never parsed; images become links (the console's CSP loads images from the service only); headings become
 * bold paragraphs (a description's "###" must not break the page's heading outline); links get
 * `rel="noopener noreferrer nofollow"`. Nothing here needs an inline script or style.
 */
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html: ({ text }) => escape(text),
    heading({ tokens, depth }) {
      return `<p class="md-heading md-h${depth}"><strong>${this.parser.parseInline(tokens)}</strong></p>\n`;
    },
    image: ({ href, text }) => `<a href="${escape(href)}">${escape(text || href)}</a>`,
    checkbox: ({ checked }) => (checked ? '☑ ' : '☐ '),
  },
});

const ALLOWED_TAGS = ['p', 'br', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a', 'hr', 'table', 'thead', 'tbody', 'tr', 'th', 'td'];
const ALLOWED_ATTR = ['href', 'title', 'start', 'class'];

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') node.setAttribute('rel', 'noopener noreferrer nofollow');
});

/** Markdown as sanitized HTML, ready for `dangerouslySetInnerHTML`. */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text) as string;
  return DOMPurify.sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR, ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|\/|#)/i });
}
