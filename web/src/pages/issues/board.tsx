/**
 * The board of a project (issue 41), loaded as a chunk of its own when first shown (board-view.tsx): the first load of
 * every other page stays small. The project and its states are asked for while the chunk loads, not after.
 */
import { loadProjectMeta } from '../../components/issue-bits.js';
import { lazy } from '../../lazy.js';

const View = lazy(() => import('./board-view.js').then((m) => m.BoardView));

export function Board(props: { slug: string; projectId: string; query: URLSearchParams }) {
  void loadProjectMeta(props.slug, props.projectId).catch(() => undefined); // the view shows the error, if any
  return <View {...props} />;
}
