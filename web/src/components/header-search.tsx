/**
 * The header's search field (contract 23.1, 23.5): `/` or Ctrl/⌘+K focuses it, results come as one types (debounced,
 * stale answers dropped), matched words are marked, and it is an ARIA 1.2 combobox: the focus stays in the field,
 * ArrowDown/ArrowUp move `aria-activedescendant` over the options, Enter opens the issue, Escape closes the list.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, unwrap } from '../api.js';
import { navigate } from '../router.js';
import { ProblemView } from '../ui.js';
import { Highlighted } from './highlighted.js';

const PER_PAGE = 8;

function searchIssues(slug: string, q: string) {
  return unwrap(api().GET('/api/workspaces/{slug}/search/', { params: { path: { slug }, query: { q, per_page: PER_PAGE } } }));
}
type SearchAnswer = Awaited<ReturnType<typeof searchIssues>>;
type Hit = SearchAnswer['results'][number];

const DEBOUNCE_MS = 150;
const FIELD_WORDS: Record<Hit['snippet']['field'], string> = {
  key: 'Key',
  name: 'Name',
  description: 'Description',
  comment: 'Comment',
  custom_value: 'Custom value',
};

/** Whether a key press is text being typed into a control (where `/` and Ctrl+K belong to that control). */
function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) return !['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'color', 'range', 'image'].includes(target.type);
  return false;
}

/** The field's own value, marked when the snippet is that field whole; otherwise as it is. */
function Part({ hit, field, value }: { hit: Hit; field: 'key' | 'name'; value: string }) {
  return hit.snippet.field === field && hit.snippet.text === value ? <Highlighted text={value} ranges={hit.snippet.highlights} /> : <>{value}</>;
}

/** A query the API refuses (400: empty, too long, operators only) in one line; anything else as the API states it. */
function SearchProblem({ error }: { error: unknown }) {
  if (!(error instanceof ApiError) || error.status !== 400) return <ProblemView error={error} />;
  const p = error.problem;
  return (
    <p class="problem" role="alert">
      <strong>Cannot search for that:</strong> {p.errors?.[0]?.message ?? p.detail}{' '}
      <span class="code">
        ({p.status} {p.code})
      </span>
    </p>
  );
}

let searchSeq = 0;

export function HeaderSearch({ slug }: { slug: string }) {
  const id = useRef(`search${++searchSeq}`).current;
  const input = useRef<HTMLInputElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [answer, setAnswer] = useState<{ q: string; data?: SearchAnswer; error?: unknown } | null>(null);
  const [loading, setLoading] = useState(false);
  const seq = useRef(0);

  // Another workspace: start afresh.
  useEffect(() => {
    seq.current++;
    setText('');
    setAnswer(null);
    setOpen(false);
  }, [slug]);

  useEffect(() => {
    const q = text.trim();
    const mine = ++seq.current;
    setActive(-1);
    if (!q) {
      setAnswer(null);
      setLoading(false);
      return;
    }
    setLoading(true);
    const timer = setTimeout(() => {
      searchIssues(slug, q).then(
        (data) => {
          if (mine !== seq.current) return; // an answer to an older text
          setAnswer({ q, data });
          setLoading(false);
        },
        (error: unknown) => {
          if (mine !== seq.current) return;
          setAnswer({ q, error });
          setLoading(false);
        },
      );
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, slug]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || typingIn(e.target)) return;
      const slash = e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey;
      const k = (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k';
      if (!slash && !k) return;
      e.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const hits = answer?.data?.results ?? [];
  const shown = open && text.trim() !== '';
  const expanded = shown && hits.length > 0;
  const optionId = (n: number) => `${id}-o${n}`;

  const go = (hit: Hit) => {
    setOpen(false);
    setText('');
    navigate(`/w/${slug}/p/${hit.issue.project_id}/issues/${hit.issue.id}`);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!hits.length) return;
      if (!open) {
        setOpen(true);
        setActive(e.key === 'ArrowDown' ? 0 : hits.length - 1);
        return;
      }
      if (e.key === 'ArrowDown') setActive(active >= hits.length - 1 ? 0 : active + 1);
      else setActive(active <= 0 ? hits.length - 1 : active - 1);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      const hit = hits[active >= 0 ? active : 0];
      if (expanded && hit) go(hit);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      if (open && text.trim()) {
        setOpen(false);
        setActive(-1);
      } else setText(''); // a second Escape empties the field
    }
  };

  useEffect(() => {
    if (active >= 0) document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
  }, [active]);

  const data = answer?.data;
  let status = '';
  if (data && answer?.q) {
    if (!data.results.length) status = `No issues match “${answer.q}”.`;
    else if (data.fuzzy) status = `No issue has these words. Similar names: ${data.results.length}.`;
    else {
      const total = `${data.total}${data.total_capped ? '+' : ''}`;
      status =
        data.total > data.results.length
          ? `${total} issues match; the first ${data.results.length} are shown.`
          : `${total} ${data.total === 1 ? 'issue matches' : 'issues match'}.`;
    }
  } else if (loading) status = 'Searching…';

  return (
    <div
      class="search"
      role="search"
      ref={box}
      onFocusOut={(e) => {
        if (!box.current?.contains(e.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <label for={id} class="sr-only">
        Search issues
      </label>
      <input
        id={id}
        ref={input}
        type="text"
        role="combobox"
        autocomplete="off"
        spellcheck={false}
        placeholder="Search issues ( / )"
        aria-keyshortcuts="/ Control+K Meta+K"
        aria-autocomplete="list"
        aria-controls={`${id}-list`}
        aria-expanded={expanded}
        aria-activedescendant={expanded && active >= 0 ? optionId(active) : undefined}
        aria-describedby={`${id}-status`}
        value={text}
        onInput={(e) => {
          setText(e.currentTarget.value);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onKeyDown={onKeyDown}
      />
      <div class="search-popup" hidden={!shown}>
        <p id={`${id}-status`} class="search-status" role="status" aria-live="polite">
          {shown ? status : ''}
        </p>
        {shown && answer?.error ? <SearchProblem error={answer.error} /> : null}
        <ul id={`${id}-list`} role="listbox" aria-label="Issues found" hidden={!expanded}>
          {hits.map((hit, n) => (
            <li
              key={hit.issue.id}
              id={optionId(n)}
              role="option"
              aria-selected={n === active}
              class={n === active ? 'active' : undefined}
              onMouseDown={(e) => e.preventDefault() /* keep the focus in the field */}
              onMouseMove={() => n !== active && setActive(n)}
              onClick={() => go(hit)}
            >
              <span class="search-head">
                <span class="search-key">
                  <Part hit={hit} field="key" value={hit.issue.key} />
                </span>{' '}
                <span class="search-name">
                  <Part hit={hit} field="name" value={hit.issue.name} />
                </span>{' '}
                <span class="search-state">{hit.issue.state.name}</span>
                {data?.fuzzy ? <span class="badge info">similar name</span> : null}
              </span>
              {hit.snippet.field !== 'key' && !(hit.snippet.field === 'name' && hit.snippet.text === hit.issue.name) && hit.snippet.text ? (
                <span class="search-snippet">
                  <span class="muted">{FIELD_WORDS[hit.snippet.field]}:</span> <Highlighted text={hit.snippet.text} ranges={hit.snippet.highlights} />
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
