import { Type } from 'typebox';
import { Slug, Uuid } from '../../http/schemas.js';
import { IssueCardSchema } from '../work-items/index.js';
import { MAX_QUERY_LENGTH, MAX_QUERY_WORDS, MIN_PREFIX_LENGTH } from './search.rules.js';

export const SearchParams = Type.Object({ slug: Slug });
export const SimilarParams = Type.Object({ slug: Slug, projectId: Uuid });

const Repeatable = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description }));

export const SearchQuery = Type.Object(
  {
    q: Type.String({
      maxLength: 1000,
      description:
        `1..${MAX_QUERY_LENGTH} characters after trimming. Words are ANDed; "quoted phrase"; \`or\` between terms; \`-word\` ` +
        `excludes; the last word also matches as a prefix (from ${MIN_PREFIX_LENGTH} letters) of the words of the ` +
        `workspace's issue names and descriptions. Case and accents do not ` +
        `matter (Turkish letters included). An issue key (\`WEB-12\`) or \`#12\` with \`project_id\` puts that issue ` +
        `first. At most ${MAX_QUERY_WORDS} words.`,
    }),
    project_id: Type.Optional(Uuid),
    state_group: Repeatable('Issues in any of these state groups'),
    priority: Repeatable('Issues of any of these priorities'),
    assignee_id: Repeatable('Issues assigned to any of these: member UUIDs, `me` or `none`'),
    label_id: Repeatable('Issues carrying any of these labels (UUIDs)'),
    offset: Type.Integer({ minimum: 0, maximum: 1000, default: 0, description: 'Results to skip, 0..1000 (default 0)' }),
    per_page: Type.Integer({ minimum: 1, maximum: 50, default: 20, description: 'Page size, 1..50 (default 20)' }),
  },
  { additionalProperties: true },
);

const Highlight = Type.Array(Type.Integer({ minimum: 0 }), {
  minItems: 2,
  maxItems: 2,
  description: 'Start (inclusive) and end (exclusive) of a matched word in `text`, in UTF-16 code units: [start, end]',
});

const MatchedIn = Type.Union([Type.Literal('key'), Type.Literal('name'), Type.Literal('description'), Type.Literal('comment'), Type.Literal('custom_value')]);

export const SearchResult = Type.Object({
  issue: IssueCardSchema,
  score: Type.Number({
    description: 'The best field holding the query: 1 name, 0.4 description, 0.2 comment or custom value; plus 1 when named by key',
  }),
  matched_in: Type.Array(MatchedIn, { description: 'Where the words were found' }),
  snippet: Type.Object({
    field: MatchedIn,
    text: Type.String({ description: 'At most 200 UTF-16 code units of the best-matching field around the match' }),
    highlights: Type.Array(Highlight),
    comment_id: Type.Optional(Uuid),
  }),
});

export const SearchPage = Type.Object({
  results: Type.Array(SearchResult),
  total: Type.Integer({ description: 'Exact up to 1,000' }),
  total_capped: Type.Boolean({ description: 'More than 1,000 issues match (total reads 1000)' }),
  offset: Type.Integer(),
  per_page: Type.Integer(),
  fuzzy: Type.Boolean({ description: 'The words found nothing: these are names like them (trigram similarity)' }),
});

export const SimilarQuery = Type.Object(
  {
    name: Type.String({ maxLength: 1000, description: "The new issue's name as typed, 3..255 characters after trimming" }),
    description: Type.Optional(Type.String({ maxLength: 100_000, description: 'Its description so far (optional)' })),
  },
  { additionalProperties: true },
);

export const SimilarIssue = Type.Object({
  issue: IssueCardSchema,
  similarity: Type.Number({ minimum: 0, maximum: 1, description: '0..1, two decimals; only 0.3 and above are shown' }),
});
