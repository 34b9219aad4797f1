/** Text with some ranges marked: the search's highlights, built as text and `<mark>` nodes (never as HTML). */

/**
 * `ranges` are `[start, end)` offsets in UTF-16 code units of `text`, as the API sends them. Ranges out of bounds are
 * clipped, overlapping ones merged, so a bad offset can at worst mark too little, never break the text.
 */
export function Highlighted({ text, ranges }: { text: string; ranges: readonly (readonly number[])[] }) {
  const sorted = ranges
    .map(([s = 0, e = 0]) => [Math.max(0, Math.min(s, text.length)), Math.max(0, Math.min(e, text.length))] as const)
    .filter(([s, e]) => e > s)
    .sort((a, b) => a[0] - b[0]);
  const parts: (string | preact.JSX.Element)[] = [];
  let at = 0;
  for (const [s, e] of sorted) {
    if (e <= at) continue;
    const from = Math.max(s, at);
    if (from > at) parts.push(text.slice(at, from));
    parts.push(<mark key={from}>{text.slice(from, e)}</mark>);
    at = e;
  }
  if (at < text.length) parts.push(text.slice(at));
  return <>{parts}</>;
}
