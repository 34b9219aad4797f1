/** Small read-only blocks: a list of named values, a card. */
import type { ComponentChildren } from 'preact';

/** Named values (`dl.limits`), each a term and its value. */
export function Facts({ items, live }: { items: [string, ComponentChildren][]; live?: boolean }) {
  return (
    <dl class="limits" aria-live={live ? 'polite' : undefined}>
      {items.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Card({ children, role }: { children: ComponentChildren; role?: 'status' }) {
  return (
    <div class="card" role={role}>
      {children}
    </div>
  );
}
