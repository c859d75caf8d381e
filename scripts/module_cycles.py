#!/usr/bin/env python3
"""Circles in the module import graph of each crate of the workspace.

    python3 scripts/module_cycles.py [CRATE_SRC_DIR ...]   (default: src and crates/*/src)

An edge A -> B is a path to module B written in module A (`crate::b::...`, `super::b`,
`self::b`, `use` lists included), also through a module brought in by `use` (`use
super::pages;` then `pages::screen::View` is an edge to `pages::screen`). Edges between a module and its ancestors are left out: a
parent re-exporting its children's items and children using their parent's items is the
facade every crate has, not a circle between peers. Prints every strongly connected
component of more than one module and exits 1 if there is any. A stand-in for
`cargo modules dependencies --acyclic` (cargo-modules builds rust-analyzer, long on a
small machine); it reads the source text, so a path built by a macro is not seen.
"""
import glob
import os
import re
import sys

TOKEN = re.compile(r"\b(crate|super|self)((?:::\w+)+|::\{)")


def modules(src):
    """Module path (tuple) of every .rs file under src."""
    mods = {}
    for path in glob.glob(os.path.join(src, "**", "*.rs"), recursive=True):
        rel = os.path.relpath(path, src)[:-3].split(os.sep)
        if rel[-1] in ("lib", "main", "mod"):
            rel = rel[:-1]
        mods[tuple(rel)] = path
    return mods


def strip_comments(text):
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def targets(base, rest, known):
    """Modules named by `base` followed by the segments of rest (or a brace list)."""
    found = set()
    for tail in rest:
        parts = list(base) + tail
        best = None
        for i in range(len(parts), -1, -1):
            if tuple(parts[:i]) in known:
                best = tuple(parts[:i])
                break
        if best is not None:
            found.add(best)
    return found


def expand(text, start):
    """The paths after `::{` at text[start:], one level of nesting flattened."""
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    inner = text[start : i - 1]
    inner = re.sub(r"\{[^{}]*\}", "", inner)
    return [p.strip().split("::") for p in inner.split(",") if p.strip()]


def module_aliases(base, tails, known):
    """`use crate::a::b;` (or `use super::{b, c};`) naming modules: b -> its module, so that
    `b::x::Y` later in the file counts as a path to `a::b::x`."""
    found = {}
    for tail in tails:
        parts = tuple(base) + tuple(tail)
        if parts and parts[-1] not in ("self", "*") and parts in known:
            found[parts[-1]] = parts
    return found


def aliased(text, aliases, known):
    """Modules named through a module brought in by `use` (`pages::screen::View`)."""
    found = set()
    for name, module in aliases.items():
        pattern = r"(?<![\w:])" + re.escape(name) + r"((?:::\w+)*)"
        for m in re.finditer(pattern, text):
            rest = [s for s in m.group(1).split("::") if s]
            found |= targets(module, [rest], known)
    return found


def edges(src):
    known = modules(src)
    graph = {m: set() for m in known}
    for mod, path in known.items():
        is_dir_mod = os.path.basename(path) in ("lib.rs", "main.rs", "mod.rs")
        here = mod
        text = strip_comments(open(path, encoding="utf-8").read())
        aliases = {}
        for m in TOKEN.finditer(text):
            kind, rest = m.group(1), m.group(2)
            if kind == "crate":
                base = ()
            elif kind == "self":
                base = here
            else:
                base = here[:-1]
                # super::super::...
                segs = rest.strip(":").split("::")
                while segs and segs[0] == "super":
                    base = base[:-1]
                    segs = segs[1:]
                rest = "::" + "::".join(segs) if segs else rest
            if rest.endswith("::{"):
                prefix = [s for s in rest[:-3].split("::") if s]
                tails = [prefix + p for p in expand(text, m.end())]
            else:
                tails = [[s for s in rest.split("::") if s]]
            for t in targets(base, tails, known):
                if t != here:
                    graph[here].add(t)
            if text[max(0, m.start() - 4) : m.start()] == "use ":
                aliases.update(module_aliases(base, tails, known))
        for t in aliased(text, aliases, known):
            if t != here:
                graph[here].add(t)
        del is_dir_mod
    for a in graph:
        graph[a] = {b for b in graph[a] if a[: len(b)] != b and b[: len(a)] != a}
    return graph


def components(graph):
    """Tarjan's strongly connected components."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return [c for c in out if len(c) > 1]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs = sys.argv[1:] or [os.path.join(root, "src")] + sorted(
        glob.glob(os.path.join(root, "crates", "*", "src"))
    )
    bad = 0
    for src in dirs:
        comps = components(edges(src))
        name = os.path.relpath(src, root)
        if not comps:
            print(f"{name}: no circle")
        for comp in comps:
            bad += 1
            names = sorted("::".join(m) or "(root)" for m in comp)
            print(f"{name}: circle of {len(comp)}: {', '.join(names)}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
