/** Loaded lists: loading, the API's error, an empty text, or the items (as cards, or as the caller draws them), paged. */
import type { ComponentChildren } from 'preact';
import { Empty, type Loaded, Pager, Show } from '../ui.js';

/** A list the API answers as an array. */
export function ListOf<T>({ state, empty, children }: { state: Loaded<T[]>; empty: ComponentChildren; children: (items: T[]) => ComponentChildren }) {
  return <Show state={state}>{(items) => (items.length ? children(items) : <Empty>{empty}</Empty>)}</Show>;
}

export interface Paging {
  offset: number;
  perPage: number;
  onPage: (offset: number) => void;
  label?: string;
}

/** A page the API answers as `{results, total, ...}`; with `paging`, Previous / Next under it. */
export function PageOf<P extends { results: unknown[]; total: number }>({
  state,
  empty,
  paging,
  children,
}: {
  state: Loaded<P>;
  empty: ComponentChildren;
  paging?: Paging;
  children: (rows: P['results'], page: P) => ComponentChildren;
}) {
  return (
    <Show state={state}>
      {(page) =>
        page.results.length ? (
          <>
            {children(page.results, page)}
            {paging ? <Pager {...paging} shown={page.results.length} total={page.total} /> : null}
          </>
        ) : (
          <Empty>{empty}</Empty>
        )
      }
    </Show>
  );
}

/** Items as cards (`ul.cards`), one `li` each. */
export function Cards<T extends { id: string }>({ items, children }: { items: T[]; children: (item: T) => ComponentChildren }) {
  return (
    <ul class="cards">
      {items.map((i) => (
        <li key={i.id}>{children(i)}</li>
      ))}
    </ul>
  );
}

/** A loaded array shown as cards, or the empty text. */
export function CardList<T extends { id: string }>({
  state,
  empty,
  children,
}: {
  state: Loaded<T[]>;
  empty: ComponentChildren;
  children: (item: T) => ComponentChildren;
}) {
  return (
    <ListOf state={state} empty={empty}>
      {(items) => <Cards items={items}>{children}</Cards>}
    </ListOf>
  );
}
