// @ts-check
// An ESLint rule that finds import circles *including* type-only imports. eslint-plugin-import-x's `no-cycle` skips
// `import type` by design (types are erased at run time), but a part that takes its dependency type from the file
// that composes it is still a circle in the code's structure (ARCHITECTURE.md: "imports never run in a circle").
// The graph of every file under the configured roots is built once per ESLint process (TypeScript's own import
// scanner, no type-checking), so the rule costs a few tens of milliseconds whatever the number of files.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const SOURCE = /\.(ts|tsx)$/;

/** @param {string} from @param {string} spec */
function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  const stem = base.replace(/\.(js|jsx|mjs)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, base, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (SOURCE.test(candidate) && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** @param {string} dir @param {string[]} out */
function walk(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** @type {Map<string, { sccOf: Map<string, number>, edges: Map<string, Set<string>> }>} */
const graphs = new Map();

/** The import graph of the roots and its strongly connected components (Tarjan). @param {string[]} roots */
function graphOf(roots) {
  const key = roots.join('\0');
  const cached = graphs.get(key);
  if (cached) return cached;
  /** @type {Map<string, Set<string>>} */
  const edges = new Map();
  const pending = roots.flatMap((root) => (existsSync(root) ? walk(root, []) : []));
  while (pending.length > 0) {
    const file = /** @type {string} */ (pending.pop());
    if (edges.has(file)) continue;
    const targets = new Set();
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of info.importedFiles) {
      const target = resolveImport(file, fileName);
      if (target) {
        targets.add(target);
        if (!edges.has(target)) pending.push(target);
      }
    }
    edges.set(file, targets);
  }
  /** @type {Map<string, number>} */
  const sccOf = new Map();
  /** @type {Map<string, number>} */
  const index = new Map();
  /** @type {Map<string, number>} */
  const low = new Map();
  /** @type {string[]} */
  const stack = [];
  const onStack = new Set();
  let counter = 0;
  let components = 0;
  /** @param {string} v */
  const connect = (v) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(/** @type {number} */ (low.get(v)), /** @type {number} */ (low.get(w))));
      } else if (onStack.has(w)) low.set(v, Math.min(/** @type {number} */ (low.get(v)), /** @type {number} */ (index.get(w))));
    }
    if (low.get(v) === index.get(v)) {
      const id = components++;
      let w;
      do {
        w = /** @type {string} */ (stack.pop());
        onStack.delete(w);
        sccOf.set(w, id);
      } while (w !== v);
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) connect(v);
  const graph = { sccOf, edges };
  graphs.set(key, graph);
  return graph;
}

/** The shortest way back from `start` to `goal` inside one component, for the message. */
function pathBack(/** @type {ReturnType<typeof graphOf>} */ graph, /** @type {string} */ start, /** @type {string} */ goal) {
  const component = graph.sccOf.get(goal);
  /** @type {Map<string, string | null>} */
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = /** @type {string} */ (queue.shift());
    if (v === goal) break;
    for (const w of graph.edges.get(v) ?? []) {
      if (!previous.has(w) && graph.sccOf.get(w) === component) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  const path = [];
  for (let v = /** @type {string | null | undefined} */ (goal); v; v = previous.get(v)) path.unshift(v);
  return path;
}

/** @type {import('eslint').Rule.RuleModule} */
const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports, type-only imports included, never run in a circle' },
    schema: [{ type: 'object', properties: { roots: { type: 'array', items: { type: 'string' } } }, additionalProperties: false }],
    messages: { cycle: 'Import circle: {{path}}' },
  },
  create(context) {
    const cwd = context.cwd;
    const roots = (context.options[0]?.roots ?? ['src']).map((/** @type {string} */ r) => resolve(cwd, r));
    const file = context.physicalFilename;
    const graph = graphOf(roots);
    const own = graph.sccOf.get(file);
    if (own === undefined) return {};
    /** @param {any} node */
    const check = (node) => {
      if (!node.source || typeof node.source.value !== 'string') return;
      const target = resolveImport(file, node.source.value);
      if (!target || (target !== file && graph.sccOf.get(target) !== own)) return;
      const path = [file, ...pathBack(graph, target, file)].map((p) => relative(cwd, p));
      context.report({ node, messageId: 'cycle', data: { path: path.join(' -> ') } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

export const importCycles = { meta: { name: 'import-cycles' }, rules: { 'no-import-cycle': noImportCycle } };
