/** The workspace home (issue 41): what needs me now. Built by the home page's owner. */
import { PageTitle } from '../ui.js';

export function Home({ slug }: { slug: string }) {
  return <PageTitle>{`Home ${slug}`}</PageTitle>;
}
