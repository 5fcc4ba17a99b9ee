/**
 * Dead exports: names that a module of src/ (as git tracks it) exports and that no file imports
 * by name (src/, scenarios/, test/, bench/, k6/, bin/, scripts/, committed or not). Such an export is either dead code or
 * an `export` keyword too many. `npx tsx test/tooling/dead-exports.ts` lists them;
 * test/tooling/dead-exports.test.ts fails on any not in PUBLIC_API below.
 *
 * What counts as imported: a named import (`import { x }`, `import type { x }`), a name taken
 * from a dynamic import (`const { x } = await import(...)`, `({ x } = await import(...))`,
 * `(await import(...)).x`), a name
 * after `import('...').` in a type, and `ns.x` on a namespace import. Matching is by name, not
 * by module: a name that another module also exports and someone imports counts as used (the
 * check can miss a dead export, never report a live one as dead). Default exports and
 * re-exports (`export ... from`, the folders' index.ts) are not definitions and are not listed.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/**
 * The public API, exported for users even where nothing in the repo imports it: the spec module
 * (types and rules a scenario or an integration imports, docs/scenarios.md) as a whole, and
 * single names as `path#name`.
 */
export const PUBLIC_API: readonly string[] = [
  'src/spec/',
  // Added today by the server-clock work, not used yet: its owner wires or drops it.
  'src/oracle/lib/rate.ts#serverEpochMs',
];

/** Files git tracks under src/ (null outside a checkout): a file still being written is not judged before it is committed. */
function trackedSources(root: string): Set<string> | null {
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--', 'src'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return new Set(out.split('\0').filter(Boolean));
  } catch {
    return null;
  }
}

const SCANNED = ['src', 'scenarios', 'test', 'bench', 'k6', 'bin', 'scripts'];
const SOURCE = /\.(ts|mts|js|mjs)$/;

export interface DeadExport {
  /** Path from the repo root, with forward slashes. */
  file: string;
  name: string;
  line: number;
  /**
   * Whether its own module uses the name besides defining it: then only the `export` is too
   * many (often a type in the signature of an exported function); else the code itself is dead.
   */
  usedInFile: boolean;
}

function walk(dir: string, out: string[]): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const e of entries) {
    if (e === 'node_modules' || e === 'dist' || e.startsWith('.')) continue;
    const p = join(dir, e);
    const st = statSync(p);
    if (st.isDirectory()) walk(p, out);
    else if (SOURCE.test(e) && !e.endsWith('.d.ts')) out.push(p);
  }
}

function hasExportModifier(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

function hasDefaultModifier(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
}

function bindingNames(name: ts.BindingName, out: string[]): void {
  if (ts.isIdentifier(name)) out.push(name.text);
  else for (const el of name.elements) if (!ts.isOmittedExpression(el)) bindingNames(el.name, out);
}

/** How many identifiers of each name a file holds (declarations, uses and property names alike). */
function identifierCounts(sf: ts.SourceFile): Map<string, number> {
  const counts = new Map<string, number>();
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n)) counts.set(n.text, (counts.get(n.text) ?? 0) + 1);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return counts;
}

/** Names a module defines and exports (not re-exports, not the default export); `ids` is how many identifiers name it where it is defined. */
function definedExports(sf: ts.SourceFile): { name: string; local: string; line: number; ids: number }[] {
  const out: { name: string; local: string; line: number; ids: number }[] = [];
  const at = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st)) {
      // `export { a, b }` of local names; `export ... from` is a re-export.
      if (st.moduleSpecifier || !st.exportClause || !ts.isNamedExports(st.exportClause)) continue;
      // The local name is declared once and named once more here.
      for (const el of st.exportClause.elements) out.push({ name: el.name.text, local: (el.propertyName ?? el.name).text, line: at(el), ids: 2 });
      continue;
    }
    if (!hasExportModifier(st) || hasDefaultModifier(st)) continue;
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        const names: string[] = [];
        bindingNames(d.name, names);
        for (const n of names) out.push({ name: n, local: n, line: at(d), ids: 1 });
      }
    } else if (
      (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isEnumDeclaration(st) || ts.isModuleDeclaration(st)) &&
      st.name &&
      ts.isIdentifier(st.name)
    ) {
      out.push({ name: st.name.text, local: st.name.text, line: at(st), ids: 1 });
    }
  }
  return out;
}

function isDynamicImport(e: ts.Expression): boolean {
  let x: ts.Expression = e;
  for (;;) {
    if (ts.isParenthesizedExpression(x) || ts.isAwaitExpression(x) || ts.isAsExpression(x) || ts.isNonNullExpression(x)) x = x.expression;
    else break;
  }
  return ts.isCallExpression(x) && x.expression.kind === ts.SyntaxKind.ImportKeyword;
}

/** Names a file takes from other modules. */
function importedNames(sf: ts.SourceFile, out: Set<string>): void {
  const namespaces = new Set<string>();
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && st.importClause?.namedBindings) {
      const nb = st.importClause.namedBindings;
      if (ts.isNamespaceImport(nb)) namespaces.add(nb.name.text);
      else for (const el of nb.elements) out.add((el.propertyName ?? el.name).text);
    }
  }
  const visit = (n: ts.Node): void => {
    if (ts.isVariableDeclaration(n) && n.initializer && ts.isObjectBindingPattern(n.name) && isDynamicImport(n.initializer)) {
      for (const el of n.name.elements) {
        const key = el.propertyName ?? el.name;
        if (ts.isIdentifier(key)) out.add(key.text);
      }
    } else if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isObjectLiteralExpression(n.left) && isDynamicImport(n.right)) {
      // `({ x } = await import(...))`
      for (const p of n.left.properties) if ((ts.isShorthandPropertyAssignment(p) || ts.isPropertyAssignment(p)) && ts.isIdentifier(p.name)) out.add(p.name.text);
    } else if (ts.isPropertyAccessExpression(n)) {
      if (isDynamicImport(n.expression) || (ts.isIdentifier(n.expression) && namespaces.has(n.expression.text))) out.add(n.name.text);
    } else if (ts.isImportTypeNode(n) && n.qualifier) {
      let q: ts.EntityName = n.qualifier;
      while (ts.isQualifiedName(q)) q = q.left;
      out.add(q.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}

function isPublic(file: string, name: string, allow: readonly string[]): boolean {
  return allow.some((a) => (a.endsWith('/') ? file.startsWith(a) : a === `${file}#${name}`));
}

/** Every export of src/ that nothing imports by name, minus the allow-list. */
export function findDeadExports(root: string, allow: readonly string[] = PUBLIC_API): DeadExport[] {
  const files: string[] = [];
  for (const d of SCANNED) walk(join(root, d), files);
  const tracked = trackedSources(root);
  const used = new Set<string>();
  const defs: DeadExport[] = [];
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true, /\.m?js$/.test(f) ? ts.ScriptKind.JS : ts.ScriptKind.TS);
    importedNames(sf, used);
    const rel = relative(root, f).split(sep).join('/');
    if (rel.startsWith('src/') && !/\.test\.ts$/.test(rel) && (tracked === null || tracked.has(rel))) {
      const counts = identifierCounts(sf);
      for (const d of definedExports(sf)) defs.push({ file: rel, name: d.name, line: d.line, usedInFile: (counts.get(d.local) ?? 0) > d.ids });
    }
  }
  return defs.filter((d) => !used.has(d.name) && !isPublic(d.file, d.name, allow)).sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const root = new URL('../..', import.meta.url).pathname;
  const dead = findDeadExports(root);
  const code = dead.filter((d) => !d.usedInFile);
  const keyword = dead.filter((d) => d.usedInFile);
  process.stdout.write(`dead code (exported, used nowhere): ${code.length}\n`);
  for (const d of code) process.stdout.write(`  ${d.file}:${d.line} ${d.name}\n`);
  process.stdout.write(`export too many (used only in its own module): ${keyword.length}\n`);
  for (const d of keyword) process.stdout.write(`  ${d.file}:${d.line} ${d.name}\n`);
}
