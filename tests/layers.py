#!/usr/bin/env python3
"""layers.py — the layers of the source tree, checked.

    python3 tests/layers.py include        who includes whom, folder by folder
    python3 tests/layers.py link BUILD     the same at link level (nm)

The layers, lowest first, and what each may use (README "How it works"):
core (the engine), nodes/simd (kernels), nodes (node types), io (files),
lua (the Lua host), serve (the preview server), cli (the program); python
(the Python module) is an edge beside serve and cli: it uses the Lua host
and nothing uses it. The engine archive is core + nodes; the io archive is
io.

`include` resolves every #include "..." of every source the way the
Makefile's include paths do, prints one line per folder with the folders it
includes and how often, and fails on an arrow that points to a layer the
folder may not use, or on a circle of includes between files. `link` fails
when an object needs a symbol that only a layer it may not use defines (a
declaration copied by hand passes the include paths, not this).
"""
import os
import re
import subprocess
import sys

# folder: the folders whose headers it may include (itself always)
ALLOWED = {
    "core": [],
    "nodes/simd": ["core"],
    "nodes": ["core", "nodes/simd"],
    "io": ["core"],
    "lua": ["core", "nodes", "nodes/simd", "io"],
    "serve": ["core", "nodes", "nodes/simd", "io", "lua"],
    "cli": ["core", "nodes", "nodes/simd", "io", "lua", "serve"],
    "python": ["core", "nodes", "nodes/simd", "io", "lua"],
}
ORDER = ["core", "nodes/simd", "nodes", "io", "lua", "serve", "cli", "python"]
# io sees the engine through its public header alone
PUBLIC = {("io", "core"): {"noisegraph.h"}}
# the -I folders of each layer, in the Makefile's order (INC_<layer>)
SEARCH = {
    "core": ["core"],
    "nodes/simd": ["core", "nodes/simd"],
    "nodes": ["core", "nodes", "nodes/simd"],
    "io": ["core", "io"],
    "lua": ["core", "nodes", "nodes/simd", "io", "lua"],
    "serve": ["core", "nodes", "nodes/simd", "io", "lua", "serve"],
    "cli": ["core", "nodes", "nodes/simd", "io", "lua", "serve", "cli"],
    "python": ["core", "nodes", "nodes/simd", "io", "lua", "python"],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(folder):
    """The layer's sources, in its subfolders too (io/without/) but not in
    those that are layers of their own (nodes/simd/)."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if os.path.join(root, d) not in ORDER)
        found += [os.path.join(root, f) for f in files if f.endswith((".c", ".h", ".cc"))]
    return sorted(found)


def layer_of(path):
    """The layer a file belongs to: the deepest layer folder holding it."""
    folder = os.path.dirname(path)
    while folder and folder not in ORDER:
        folder = os.path.dirname(folder)
    return folder


def resolve(path, name, layer):
    here = os.path.normpath(os.path.join(os.path.dirname(path), name))
    if os.path.isfile(here):
        return here
    for d in SEARCH[layer]:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(p):
            return p
    return None


def check_includes():
    bad, edges = [], {}
    for layer in ORDER:
        counts = {}
        for path in sources(layer):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for name in INCLUDE.findall(text):
                target = resolve(path, name, layer)
                if target is None:
                    bad.append(f"{path}: includes \"{name}\", which no folder of its layer holds")
                    continue
                edges.setdefault(path, set()).add(target)
                folder = layer_of(target)
                counts[folder] = counts.get(folder, 0) + 1
                if folder != layer and folder not in ALLOWED[layer]:
                    bad.append(f"{path}: includes {target}: {layer}/ may not use {folder}/")
                pub = PUBLIC.get((layer, folder))
                if pub is not None and os.path.basename(target) not in pub:
                    bad.append(f"{path}: includes {target}: {layer}/ sees {folder}/ through "
                               f"{', '.join(sorted(pub))} alone")
        shown = ", ".join(f"{d}/ ({n})" for d, n in sorted(counts.items(), key=lambda kv: ORDER.index(kv[0])
                                                              if kv[0] in ORDER else 99))
        print(f"layers: {layer + '/':12} includes {shown}")
    # a circle: depth-first search over file -> included file
    state, stack = {}, []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                bad.append("a circle of includes: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return bad


def symbols(objs, defined):
    args = ["nm", "-g", "--defined-only"] if defined else ["nm", "-u"]
    out = subprocess.run(args + objs, check=True, capture_output=True, text=True).stdout
    syms = set()
    for line in out.splitlines():
        parts = line.split()
        if (defined and len(parts) == 3) or (not defined and len(parts) == 2):
            syms.add(parts[-1])
    return syms


def check_link(build):
    objs = {}
    for layer in ORDER:
        d = os.path.join(build, layer)
        if os.path.isdir(d):
            # a layer's objects, without those of its sub-layers' folders
            objs[layer] = sorted(os.path.join(root, f) for root, _, files in os.walk(d) for f in files
                                 if f.endswith(".o") and not any(
                                     os.path.join(build, o) != d and
                                     os.path.commonpath([root, os.path.join(build, o)]) == os.path.join(build, o)
                                     for o in ORDER if o.startswith(layer + "/")))
    defined = {layer: symbols(o, True) for layer, o in objs.items() if o}
    bad = []
    for layer, o in objs.items():
        if not o:
            continue
        need = symbols(o, False)
        for other, syms in defined.items():
            if other == layer or other in ALLOWED[layer]:
                continue
            for sym in sorted(need & syms):
                bad.append(f"{layer}/ uses {sym}, which {other}/ defines: {layer}/ may not use {other}/")
    return bad


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    if len(sys.argv) == 2 and sys.argv[1] == "include":
        bad = check_includes()
    elif len(sys.argv) == 3 and sys.argv[1] == "link":
        bad = check_link(sys.argv[2])
    else:
        print("usage: layers.py include | link BUILD", file=sys.stderr)
        return 2
    for b in bad:
        print("noisegraph: layers: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
