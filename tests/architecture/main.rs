//! The shape of `src/`, checked from the code itself (docs/architecture.md).
//!
//! Every `.rs` file under `src/` is parsed with `syn`; a reference to another top-level
//! module is any path that resolves to `crate::<module>` — in a `use` tree, in code, inside a
//! macro's tokens (`format!("{}", crate::x::y())`), or reached through `super::` — outside
//! `#[cfg(test)]` items. Doc comments are not references. From that graph:
//!
//! - [`cycles`]: the import circles (asserted: none);
//! - [`upward_arrows`]: an arrow from a lower layer to a higher one, by the layer table
//!   [`LAYERS`] that docs/architecture.md explains (asserted: none; a new top-level module
//!   must be placed in the table);
//! - [`long_functions`] and [`string_results`]: no function over 150 lines; the few
//!   `Result<_, String>` left are listed with why (asserted).

use proc_macro2::{TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::{self, Visit};

/// The layers, lowest first. A module may use its own layer and the ones before it; within
/// a layer the graph must still be acyclic. Keep in step with docs/architecture.md.
pub const LAYERS: &[(&str, &[&str])] = &[
    (
        "foundation",
        &[
            "format",
            "jsjson",
            "logging",
            "packed",
            "paths",
            "regular_file",
            "retry",
            "sanitize",
        ],
    ),
    (
        "domain",
        &[
            // formats and arithmetic
            "instructions",
            "transcript",
            "tokens",
            "context",
            "plan",
            "summary",
            "store_entry",
            "thresholds",
            // readers, clients and writers
            "commit",
            "llm",
            "gateway",
            "sqlite",
            "store",
            "used",
            "flush",
            "compaction",
            // the source seam and what is computed over it
            "source",
            "numbers",
            "audit",
            "diagnosis",
            "history",
            "cost",
        ],
    ),
    ("use cases", &["usecase"]),
    ("report", &["report"]),
    ("fleet", &["fleet"]),
    ("front-ends", &["commands", "tui", "cli"]),
];

/// The layers inside `src/tui/`, lowest first: each is a child module of `tui` (a folder).
/// A layer may use its own and the ones before it: `update` never imports `draw` (what both
/// must agree on, widths and wrapping, is `layout`); nothing below `runtime` does I/O or
/// touches the terminal. `tui/mod.rs` itself only declares these and re-exports from them
/// ([`facade_items`]), so a child cannot lean on it. Keep in step with docs/architecture.md.
pub const TUI_LAYERS: &[(&str, &[&str])] = &[
    ("data", &["model"]),
    ("layout", &["layout"]),
    ("update", &["update"]),
    ("draw", &["draw"]),
    ("runtime", &["runtime"]),
];

/// Where the first reference of an edge was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    pub file: String,
    pub line: usize,
}

/// Module → modules it refers to, with the first site of each reference.
pub type Graph = BTreeMap<String, BTreeMap<String, Site>>;

fn src_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, sorted, with its module path (`src/tui/draw/mod.rs` →
/// `["tui", "draw"]`; `lib.rs` and `main.rs` → `[]`).
fn rust_files(dir: &Path) -> Vec<(PathBuf, Vec<String>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<String>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(root, &p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(root).expect("under root").with_extension("");
                let mut m: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if m.last().is_some_and(|l| l == "mod") {
                    m.pop();
                }
                if m.len() == 1 && (m[0] == "lib" || m[0] == "main") {
                    m.clear();
                }
                out.push((p, m));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out
}

/// `src/x/y.rs`: a file named from the crate root, for messages.
fn label(src: &Path, path: &Path) -> String {
    path.strip_prefix(src.parent().unwrap_or(src))
        .unwrap_or(path)
        .display()
        .to_string()
}

fn parse(path: &Path) -> syn::File {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()))
}

/// `#[cfg(test)]` (also inside `all(...)`/`any(...)`), which rustc leaves out of the crate.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta
                .require_list()
                .is_ok_and(|l| l.tokens.clone().into_iter().any(|t| is_test_token(&t)))
    })
}

fn is_test_token(t: &TokenTree) -> bool {
    match t {
        TokenTree::Ident(i) => i == "test",
        TokenTree::Group(g) => g.stream().into_iter().any(|t| is_test_token(&t)),
        _ => false,
    }
}

/// Collects the top-level modules one file refers to.
struct Refs {
    /// The module the visitor is in: the file's path plus inline `mod` blocks.
    module: Vec<String>,
    /// Each reference as the absolute module path it names (`crate::a::b::C` → `[a, b, C]`).
    out: Vec<(Vec<String>, usize)>,
}

impl Refs {
    /// Resolves a path's leading segments (`crate`, `super`, `self`) to an absolute module
    /// path and records it.
    fn resolve(&mut self, segments: &[String], line: usize) {
        let mut at: Vec<String> = match segments.first().map(String::as_str) {
            Some("crate") => Vec::new(),
            Some("super") | Some("self") => self.module.clone(),
            _ => return,
        };
        let mut rest = &segments[usize::from(segments[0] == "crate")..];
        while let Some(first) = rest.first() {
            match first.as_str() {
                "super" => {
                    at.pop();
                }
                "self" => {}
                _ => break,
            }
            rest = &rest[1..];
        }
        at.extend(rest.iter().cloned());
        if !at.is_empty() {
            self.out.push((at, line));
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                prefix.push(n.ident.to_string());
                self.resolve(prefix, n.ident.span().start().line);
                prefix.pop();
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.resolve(prefix, r.ident.span().start().line);
                prefix.pop();
            }
            syn::UseTree::Glob(g) => {
                self.resolve(prefix, g.star_token.spans[0].start().line);
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    /// `crate :: a`, `super :: a` sequences inside macro tokens (which syn leaves unparsed).
    fn tokens(&mut self, ts: TokenStream) {
        let toks: Vec<TokenTree> = ts.into_iter().collect();
        let mut i = 0;
        while i < toks.len() {
            if let TokenTree::Group(g) = &toks[i] {
                self.tokens(g.stream());
                i += 1;
                continue;
            }
            if let TokenTree::Ident(id) = &toks[i] {
                let head = id.to_string();
                let preceded_by_colons =
                    i >= 1 && matches!(&toks[i - 1], TokenTree::Punct(p) if p.as_char() == ':');
                if (head == "crate" || head == "super") && !preceded_by_colons {
                    let mut segs = vec![head];
                    let mut j = i + 1;
                    let colon = |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ':');
                    while colon(toks.get(j)) && colon(toks.get(j + 1)) {
                        let Some(TokenTree::Ident(next)) = toks.get(j + 2) else {
                            break;
                        };
                        segs.push(next.to_string());
                        j += 3;
                    }
                    if segs.len() > 1 {
                        self.resolve(&segs, id.span().start().line);
                    }
                    i = j.max(i + 1);
                    continue;
                }
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Refs {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        let attrs = match i {
            syn::Item::Const(x) => &x.attrs,
            syn::Item::Enum(x) => &x.attrs,
            syn::Item::Fn(x) => &x.attrs,
            syn::Item::Impl(x) => &x.attrs,
            syn::Item::Mod(x) => &x.attrs,
            syn::Item::Static(x) => &x.attrs,
            syn::Item::Struct(x) => &x.attrs,
            syn::Item::Trait(x) => &x.attrs,
            syn::Item::Type(x) => &x.attrs,
            syn::Item::Use(x) => &x.attrs,
            syn::Item::Macro(x) => &x.attrs,
            _ => return visit::visit_item(self, i),
        };
        if !is_test_only(attrs) {
            visit::visit_item(self, i);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test_only(&f.attrs) {
            visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.module.push(m.ident.to_string());
        visit::visit_item_mod(self, m);
        self.module.pop();
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if let Some(first) = p.segments.first() {
            self.resolve(&segs, first.ident.span().start().line);
        }
        visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
        visit::visit_macro(self, m);
    }

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {
        // Doc comments and other attributes are not references.
    }
}

/// The top-level modules `file` (whose module path is `module`) refers to, with the line of
/// each reference, other than its own.
pub fn references(file: &syn::File, module: &[String]) -> Vec<(String, usize)> {
    let own = module.first().cloned();
    paths(file, module)
        .into_iter()
        .map(|(p, line)| (p[0].clone(), line))
        .filter(|(m, _)| Some(m) != own.as_ref())
        .collect()
}

/// Every path `file` (whose module path is `module`) refers to, made absolute
/// (`super::x` in `a::b` → `[a, x]`), with the line of each; its own module's included.
pub fn paths(file: &syn::File, module: &[String]) -> Vec<(Vec<String>, usize)> {
    let mut r = Refs {
        module: module.to_vec(),
        out: Vec::new(),
    };
    r.visit_file(file);
    r.out
}

/// The module graph of `src` (top-level modules; `lib.rs` and `main.rs` are not nodes).
pub fn module_graph(src: &Path) -> Graph {
    let mut g = Graph::new();
    for (path, module) in rust_files(src) {
        let Some(top) = module.first().cloned() else {
            continue;
        };
        let label = label(src, &path);
        let node = g.entry(top).or_default();
        for (to, line) in references(&parse(&path), &module) {
            node.entry(to).or_insert_with(|| Site {
                file: label.clone(),
                line,
            });
        }
    }
    g
}

/// Each import circle as a path `a → b → … → a` (one per strongly connected component),
/// every arrow with where it is made.
pub fn cycles(g: &Graph) -> Vec<String> {
    // Tarjan's strongly connected components, then one cycle through each.
    struct T<'g> {
        g: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on: BTreeSet<&'g str>,
        sccs: Vec<BTreeSet<&'g str>>,
    }
    impl<'g> T<'g> {
        fn run(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on.insert(v);
            for w in self.g.get(v).into_iter().flat_map(|e| e.keys()) {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.run(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if self.on.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    comp.insert(w);
                    if w == v {
                        break;
                    }
                }
                self.sccs.push(comp);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        sccs: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.run(v);
        }
    }
    t.sccs
        .iter()
        .filter(|c| {
            c.len() > 1
                || c.iter()
                    .any(|v| g.get(*v).is_some_and(|e| e.contains_key(*v)))
        })
        .map(|comp| {
            // A shortest way back to the start, inside the component (breadth first).
            let start = *comp.iter().next().expect("non-empty");
            let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
            let mut queue = std::collections::VecDeque::from([start]);
            let mut back = None;
            'bfs: while let Some(v) = queue.pop_front() {
                for w in g[v].keys().map(String::as_str).filter(|w| comp.contains(w)) {
                    if w == start {
                        back = Some(v);
                        break 'bfs;
                    }
                    if !prev.contains_key(w) {
                        prev.insert(w, v);
                        queue.push_back(w);
                    }
                }
            }
            let mut path = vec![start];
            let mut v = back.expect("a component has a cycle");
            while v != start {
                path.push(v);
                v = prev[v];
            }
            path[1..].reverse();
            path.push(start);
            path.windows(2)
                .map(|w| {
                    let s = &g[w[0]][w[1]];
                    format!("{} -> {} ({}:{})", w[0], w[1], s.file, s.line)
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect()
}

/// Arrows to a higher layer than their own, and modules that are in no layer.
pub fn upward_arrows(g: &Graph, layers: &[(&str, &[&str])]) -> Vec<String> {
    let layer = |m: &str| layers.iter().position(|(_, ms)| ms.contains(&m));
    let mut out = Vec::new();
    let mut nodes: BTreeSet<&str> = g.keys().map(String::as_str).collect();
    nodes.extend(g.values().flat_map(|e| e.keys().map(String::as_str)));
    for m in &nodes {
        if layer(m).is_none() {
            out.push(format!(
                "module `{m}` is in no layer: place it in LAYERS (tests/architecture/main.rs) and docs/architecture.md"
            ));
        }
    }
    for (from, edges) in g {
        for (to, site) in edges {
            if let (Some(a), Some(b)) = (layer(from), layer(to)) {
                if b > a {
                    out.push(format!(
                        "{from} ({}) -> {to} ({}) at {}:{}",
                        layers[a].0, layers[b].0, site.file, site.line
                    ));
                }
            }
        }
    }
    out
}

/// The graph among the children of module `parent` (`["tui"]`: model, layout, …): a node per
/// direct child (a file, or a folder with everything in it), an edge where a file inside one
/// child refers to a path inside another. A child and `parent` itself (its children's parent,
/// their `super`) are a module and its children: no edge. A reference to an item of
/// `parent`'s own file (a re-export, say) becomes an edge to a node named after that item,
/// which is in no layer (see [`upward_arrows`]).
pub fn child_graph(src: &Path, parent: &[&str]) -> Graph {
    let files: Vec<(Vec<String>, String, syn::File)> = rust_files(src)
        .into_iter()
        .filter(|(_, m)| m.len() > parent.len() && m.iter().zip(parent).all(|(a, b)| a == b))
        .map(|(path, m)| (m, label(src, &path), parse(&path)))
        .collect();
    child_graph_of(&files, parent)
}

/// [`child_graph`] over parsed files: (module path, label, file).
pub fn child_graph_of(files: &[(Vec<String>, String, syn::File)], parent: &[&str]) -> Graph {
    let inside = |m: &[String]| m.len() > parent.len() && m.iter().zip(parent).all(|(a, b)| a == b);
    let mut g = Graph::new();
    let n = parent.len();
    for (module, label, file) in files.iter().filter(|(m, _, _)| inside(m)) {
        let from = module[n].clone();
        let node = g.entry(from.clone()).or_default();
        for (to, line) in paths(file, module) {
            if !inside(&to) || to[n] == from {
                continue;
            }
            node.entry(to[n].clone()).or_insert_with(|| Site {
                file: label.clone(),
                line,
            });
        }
    }
    g
}

/// Every module under `root` (itself included) that has child modules, as paths.
fn parents_under(src: &Path, root: &[&str]) -> BTreeSet<Vec<String>> {
    rust_files(src)
        .into_iter()
        .filter(|(_, m)| m.len() > root.len() && m.iter().zip(root).all(|(a, b)| a == b))
        .flat_map(|(_, m)| (root.len()..m.len()).map(move |k| m[..k].to_vec()))
        .collect()
}

/// Items of a facade file other than `mod` declarations and `use` (re-exports): (line, what).
pub fn facade_items(file: &syn::File) -> Vec<(usize, String)> {
    use syn::spanned::Spanned;
    file.items
        .iter()
        .filter(|i| !matches!(i, syn::Item::Mod(_) | syn::Item::Use(_)))
        .map(|i| {
            let what = match i {
                syn::Item::Fn(f) => format!("fn {}", f.sig.ident),
                syn::Item::Struct(x) => format!("struct {}", x.ident),
                syn::Item::Enum(x) => format!("enum {}", x.ident),
                syn::Item::Impl(_) => "impl".to_string(),
                _ => "an item".to_string(),
            };
            (i.span().start().line, what)
        })
        .collect()
}

/// Functions (free, in impls and traits) longer than `limit` lines, from `fn` to the closing
/// brace, outside `#[cfg(test)]`: (lines, file, name), longest first.
pub fn long_functions(src: &Path, limit: usize) -> Vec<(usize, String, String)> {
    struct Fns<'a> {
        file: &'a str,
        limit: usize,
        out: Vec<(usize, String, String)>,
    }
    impl Fns<'_> {
        fn check(&mut self, sig: &syn::Signature, body: &syn::Block) {
            let from = sig.fn_token.span.start().line;
            let to = body.brace_token.span.close().end().line;
            let n = to + 1 - from;
            if n > self.limit {
                self.out
                    .push((n, self.file.to_string(), sig.ident.to_string()));
            }
        }
    }
    impl<'ast> Visit<'ast> for Fns<'_> {
        fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
            if !is_test_only(&m.attrs) {
                visit::visit_item_mod(self, m);
            }
        }
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            if !is_test_only(&f.attrs) {
                self.check(&f.sig, &f.block);
                visit::visit_item_fn(self, f);
            }
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            if !is_test_only(&f.attrs) {
                self.check(&f.sig, &f.block);
                visit::visit_impl_item_fn(self, f);
            }
        }
        fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
            if let Some(b) = &f.default {
                self.check(&f.sig, b);
            }
            visit::visit_trait_item_fn(self, f);
        }
    }
    let mut out = Vec::new();
    for (path, _) in rust_files(src) {
        let label = label(src, &path);
        let mut v = Fns {
            file: &label,
            limit,
            out: Vec::new(),
        };
        v.visit_file(&parse(&path));
        out.extend(v.out);
    }
    out.sort_by(|a, b| b.cmp(a));
    out
}

/// Every `Result<_, String>` type written in `src` outside `#[cfg(test)]`: (file, line).
pub fn string_results(src: &Path) -> Vec<(String, usize)> {
    struct R<'a> {
        file: &'a str,
        out: Vec<(String, usize)>,
    }
    impl<'ast> Visit<'ast> for R<'_> {
        fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
            if !is_test_only(&m.attrs) {
                visit::visit_item_mod(self, m);
            }
        }
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            if !is_test_only(&f.attrs) {
                visit::visit_item_fn(self, f);
            }
        }
        fn visit_type_path(&mut self, t: &'ast syn::TypePath) {
            if let Some(last) = t.path.segments.last() {
                if last.ident == "Result" {
                    if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
                        let types: Vec<_> = a
                            .args
                            .iter()
                            .filter_map(|g| match g {
                                syn::GenericArgument::Type(t) => Some(t),
                                _ => None,
                            })
                            .collect();
                        if let [_, syn::Type::Path(e)] = types.as_slice() {
                            if e.qself.is_none() && e.path.is_ident("String") {
                                self.out
                                    .push((self.file.to_string(), last.ident.span().start().line));
                            }
                        }
                    }
                }
            }
            visit::visit_type_path(self, t);
        }
    }
    let mut out = Vec::new();
    for (path, _) in rust_files(src) {
        let label = label(src, &path);
        let mut v = R {
            file: &label,
            out: Vec::new(),
        };
        v.visit_file(&parse(&path));
        out.extend(v.out);
    }
    out
}

#[test]
fn no_import_circles_between_top_level_modules() {
    let g = module_graph(&src_dir());
    assert!(g.len() > 20, "the scan found only {} modules", g.len());
    let found = cycles(&g);
    assert!(
        found.is_empty(),
        "import circles between the top-level modules of src/ (docs/architecture.md):\n{}",
        found.join("\n")
    );
}

#[test]
fn no_arrow_from_a_lower_layer_to_a_higher_one() {
    let g = module_graph(&src_dir());
    let up = upward_arrows(&g, LAYERS);
    assert!(
        up.is_empty(),
        "arrows against the layering of docs/architecture.md:\n{}",
        up.join("\n")
    );
}

/// Issue 18: no function in src/ over 150 lines (a screen's or a dialog's update, a report's
/// render: each is split into named steps).
#[test]
fn no_function_over_150_lines() {
    let src = src_dir();
    let long = long_functions(&src, 150);
    assert!(
        long.is_empty(),
        "functions over 150 lines:\n{}",
        long.iter()
            .map(|(n, file, name)| format!("  {n:4}  {file}  {name}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The scanner sees the code: every function has at least its own line.
    assert!(rust_files(&src).len() > 50);
    assert!(long_functions(&src, 1).len() > 500);
}

/// The `Result<_, String>` that remain, each with why a String is right there. Everything
/// else returns a typed error that callers match on.
const STRING_RESULTS: &[(&str, &str)] = &[
    // clap's value parsers: clap prints the String as the flag's error, nothing matches on it.
    (
        "src/commands/args.rs",
        "parse_profile: clap value parser of --profile",
    ),
    (
        "src/commands/args.rs",
        "positive_secs: clap value parser of --timeout",
    ),
    (
        "src/commands/args.rs",
        "positive_usd: clap value parser of --max-cost-per-hour",
    ),
    (
        "src/diagnosis/problem.rs",
        "Problem::parse: clap value parser of --warn/--crit",
    ),
];

/// Issue 18: at most 5 `Result<_, String>` in src/, each one listed in [`STRING_RESULTS`].
#[test]
fn string_results_are_few_and_each_is_justified() {
    let found = string_results(&src_dir());
    assert!(STRING_RESULTS.len() <= 5);
    let mut allowed: BTreeMap<&str, usize> = BTreeMap::new();
    for (file, _) in STRING_RESULTS {
        *allowed.entry(file).or_default() += 1;
    }
    let mut per_file: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (file, line) in &found {
        per_file.entry(file.clone()).or_default().push(*line);
    }
    let over: Vec<String> = per_file
        .iter()
        .filter(|(file, lines)| lines.len() > allowed.get(file.as_str()).copied().unwrap_or(0))
        .map(|(file, lines)| format!("  {file}: lines {lines:?}"))
        .collect();
    assert!(
        over.is_empty(),
        "Result<_, String> beyond the justified ones (give them a typed error):\n{}",
        over.join("\n")
    );
}

/// Issue 29: the TUI's layers, data < layout < update < draw < runtime ([`TUI_LAYERS`]): no
/// arrow up the order, every child of `tui` in a layer, `tui/mod.rs` a facade.
#[test]
fn the_tui_layers_point_down_only() {
    let src = src_dir();
    let g = child_graph(&src, &["tui"]);
    let names: Vec<&str> = g.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["draw", "layout", "model", "runtime", "update"],
        "the children of src/tui/ are the layers of TUI_LAYERS"
    );
    // The layers do use each other (a scan that saw nothing would pass the rest).
    assert!(g["update"].contains_key("model") && g["update"].contains_key("layout"));
    assert!(g["draw"].contains_key("layout") && g["runtime"].contains_key("update"));
    let up = upward_arrows(&g, TUI_LAYERS);
    assert!(
        up.is_empty(),
        "arrows against the TUI's layers (data < layout < update < draw < runtime; \
         docs/architecture.md):\n{}",
        up.join("\n")
    );
    let root = src.join("tui").join("mod.rs");
    let extra = facade_items(&parse(&root));
    assert!(
        extra.is_empty(),
        "src/tui/mod.rs only declares the layers and re-exports from them; move these into a \
         layer: {extra:?}"
    );
}

/// Issue 29: no import circle inside `src/tui/` beyond a module and its own children: at
/// every level (tui's layers, the children of each layer, of `update/dialog`, …) the
/// siblings' graph is acyclic.
#[test]
fn no_import_circles_inside_the_tui() {
    let src = src_dir();
    let parents = parents_under(&src, &["tui"]);
    assert!(
        parents.len() >= 6,
        "tui and its folders: {parents:?} (the scan saw too little)"
    );
    let mut found = Vec::new();
    for p in &parents {
        let p: Vec<&str> = p.iter().map(String::as_str).collect();
        for c in cycles(&child_graph(&src, &p)) {
            found.push(format!("inside {}: {c}", p.join("::")));
        }
    }
    assert!(
        found.is_empty(),
        "import circles inside src/tui/ (docs/architecture.md):\n{}",
        found.join("\n")
    );
}

// The scanner itself, on code written here.

fn graph_of(files: &[(&[&str], &str)]) -> Graph {
    let mut g = Graph::new();
    for (module, code) in files {
        let module: Vec<String> = module.iter().map(|s| s.to_string()).collect();
        let file = syn::parse_file(code).expect("test code parses");
        let node = g.entry(module[0].clone()).or_default();
        for (to, line) in references(&file, &module) {
            node.entry(to).or_insert(Site {
                file: "test.rs".into(),
                line,
            });
        }
    }
    g
}

#[test]
fn the_scanner_resolves_use_trees_macros_and_super() {
    let g = graph_of(&[
        (
            &["a", "inner"],
            r#"
            use crate::{b, c::x};
            use super::super::d::y;
            /// [`crate::docs_only`] is not a reference.
            fn f() { let _ = format!("{}", crate::e::g()); crate::a::h(); super::own(); }
            #[cfg(test)]
            mod tests { use crate::test_only; }
            #[cfg(all(test, unix))]
            fn t() { crate::test_only_too::f(); }
            "#,
        ),
        (&["b"], "fn f() -> Option<crate::a::T> { None }"),
    ]);
    let a: Vec<&str> = g["a"].keys().map(String::as_str).collect();
    assert_eq!(a, ["b", "c", "d", "e"]);
    assert_eq!(g["a"]["e"].line, 5);
    assert_eq!(cycles(&g).len(), 1);
    assert!(cycles(&g)[0].contains("a -> b") && cycles(&g)[0].contains("b -> a"));
}

#[test]
fn the_tui_scan_sees_siblings_not_a_module_and_its_children() {
    let files: Vec<(Vec<String>, String, syn::File)> = [
        (&["tui"][..], "pub mod a; pub mod b; pub use a::x;"),
        (
            &["tui", "a"],
            "use super::b::Y;\nfn f() { crate::tui::a::inner::g(); }",
        ),
        (&["tui", "a", "inner"], "use super::super::Z; use super::*;"),
        (
            &["tui", "b"],
            "fn f() {\n crate::tui::a::h(); crate::usecase::x(); }",
        ),
        (
            &["tui", "b", "c"],
            "use super::*; use crate::tui::b::d; use super::super::a::k;",
        ),
        (&["tui", "b", "d"], "fn f() { super::c::g(); }"),
    ]
    .iter()
    .map(|(m, code)| {
        (
            m.iter().map(|s| s.to_string()).collect(),
            "test.rs".to_string(),
            syn::parse_file(code).expect("test code parses"),
        )
    })
    .collect();
    let g = child_graph_of(&files, &["tui"]);
    let edges = |n: &str| g[n].keys().map(String::as_str).collect::<Vec<_>>();
    // `a` uses `b`, and (from its child) the parent's own item `Z`; `b` uses `a`; `tui`
    // itself (the facade) and paths outside `tui` are no node.
    assert_eq!(edges("a"), ["Z", "b"]);
    assert_eq!(edges("b"), ["a"]);
    assert_eq!(g.len(), 2);
    assert_eq!(cycles(&g), ["a -> b (test.rs:1), b -> a (test.rs:2)"]);
    let layers: &[(&str, &[&str])] = &[("low", &["b"]), ("high", &["a"])];
    let up = upward_arrows(&g, layers);
    assert!(
        up.iter().any(|m| m == "b (low) -> a (high) at test.rs:2"),
        "{up:?}"
    );
    assert!(
        up.iter().any(|m| m.contains("module `Z` is in no layer")),
        "{up:?}"
    );
    // One level down, `c` and `d` use each other: a circle inside `tui::b`; `c` using its
    // parent `b` is not an edge.
    let inner = child_graph_of(&files, &["tui", "b"]);
    assert_eq!(inner["c"].keys().collect::<Vec<_>>(), ["d"]);
    assert_eq!(cycles(&inner).len(), 1);
    assert!(cycles(&child_graph_of(&files, &["tui", "a"])).is_empty());
    // The facade check: only `mod` and `use` in tui/mod.rs.
    let facade = syn::parse_file("pub mod a;\npub use a::x;\npub fn run() {}").expect("parses");
    assert_eq!(facade_items(&facade), [(3, "fn run".to_string())]);
}

#[test]
fn a_cycle_is_printed_as_its_path_and_upward_arrows_are_named() {
    let g = graph_of(&[
        (&["x"], "fn f() { crate::y::f(); }"),
        (&["y"], "fn f() { crate::z::f(); }"),
        (&["z"], "fn f() {\n crate::x::f(); }"),
        (&["low"], "fn f() { crate::x::f(); }"),
    ]);
    assert_eq!(
        cycles(&g),
        ["x -> y (test.rs:1), y -> z (test.rs:1), z -> x (test.rs:2)"]
    );
    let layers: &[(&str, &[&str])] = &[("bottom", &["low"]), ("top", &["x", "y"])];
    let up = upward_arrows(&g, layers);
    assert!(
        up.iter()
            .any(|m| m == "low (bottom) -> x (top) at test.rs:1"),
        "{up:?}"
    );
    assert!(
        up.iter().any(|m| m.contains("module `z` is in no layer")),
        "{up:?}"
    );
}

/// Issue 29 item 7: the chars/4 token estimate (pi's `Math.ceil(chars / 4)`) has one home,
/// `jsjson::ceil_div4`; a second copy once rounded down where the rest rounded up. Any
/// division of a character count by 4 elsewhere in src/ is a second definition.
#[test]
fn the_chars_per_token_estimate_is_defined_once() {
    let mut copies = Vec::new();
    for (path, _) in rust_files(&src_dir()) {
        if path.ends_with("jsjson.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let chars_over_4 =
                code.contains("chars") && (code.contains("/ 4") || code.contains("div_ceil(4)"));
            if chars_over_4 || code.contains("injected.div_ceil(4)") {
                copies.push(format!("  {}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        copies.is_empty(),
        "a token estimate from characters outside jsjson::ceil_div4:\n{}",
        copies.join("\n")
    );
}

/// Types packed by position (`src/packed.rs`: the rows cache's rows, the listing memories, the
/// listing print) must not leave a field out, or every field after it reads back one place
/// early, with no error where the later fields have defaults. A field may be left out of JSON
/// only through `crate::packed::` predicates (which never skip while packing), or in a type
/// only ever written as JSON, named here with why. A new plain `skip_serializing_if` fails
/// until its type is judged and listed.
const JSON_ONLY_SKIPS: &[(&str, &str, &str)] = &[
    (
        "report/json/pretty/tests.rs",
        "Everything",
        "a test value of the JSON writer; never packed",
    ),
    (
        "usecase/list.rs",
        "ListReport",
        "printed by list --json; the cache keeps rows, not reports",
    ),
    (
        "history/mod.rs",
        "History",
        "printed by history --json and the TUI; never cached",
    ),
    ("history/mod.rs", "FlushRecord", "inside History"),
    (
        "history/mod.rs",
        "HistoryWarning",
        "inside History; the cache keeps (code, words, compaction)",
    ),
    ("history/memory.rs", "MemoryNotes", "inside History"),
    ("report/show.rs", "ShowReport", "printed by show --json"),
    (
        "audit/mod.rs",
        "Dropped",
        "inside CompactionAudit, printed by audit --json",
    ),
    (
        "audit/mod.rs",
        "Totals",
        "inside the audit report, printed by audit --json",
    ),
    (
        "history/memory.rs",
        "MemoryFile",
        "Serialize only, inside History",
    ),
    (
        "used/overhead.rs",
        "OverheadPart",
        "Serialize only: printed, never read back",
    ),
];

#[test]
fn fields_left_out_of_json_are_packed_or_in_json_only_types() {
    let src = src_dir();
    let mut found = Vec::new();
    for (path, _) in rust_files(&src) {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = label(&src, &path);
        // Its own tests show what a plain skip does.
        if file.ends_with("packed.rs") {
            continue;
        }
        let mut owner = String::new();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if let Some(rest) = code.split("struct ").nth(1).filter(|_| !code.contains('"')) {
                owner = rest
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .next()
                    .unwrap_or("")
                    .to_string();
            }
            let Some(pred) = code.split("skip_serializing_if = \"").nth(1) else {
                continue;
            };
            if pred.starts_with("crate::packed::") {
                continue;
            }
            if !JSON_ONLY_SKIPS
                .iter()
                .any(|(f, t, _)| file.ends_with(f) && *t == owner)
            {
                found.push(format!("  {file}:{}: {} ({})", n + 1, line.trim(), owner));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a plain skip_serializing_if outside the JSON-only types (use crate::packed::none / \
         empty_map, or judge the type and list it in JSON_ONLY_SKIPS):\n{}",
        found.join("\n")
    );
}
