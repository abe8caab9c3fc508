#!/usr/bin/env bash
# No call circles between source files (docs/architecture.md, "Layers"):
# from the library's object files, file A depends on file B when A uses a
# symbol B defines; every strongly connected group of two or more files is
# a circle, and the test names its files and the symbols that close it.
# Also: no file under src/ longer than 800 lines.
set -euo pipefail
bin=$1
objs=$(dirname "$bin")/CMakeFiles/v10.dir/src
[ -d "$objs" ] || { echo "layers.sh: no object files under $objs" >&2; exit 1; }
python3 - "$objs" <<'PY'
import os, subprocess, sys
root = sys.argv[1]
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".o"))
name = lambda p: "src/" + os.path.relpath(p, root)[:-2]
defs, uses = {}, {f: set() for f in map(name, files)}
def nm(flag):
    out = subprocess.run(["nm", "-A", flag] + files, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        path, _, rest = line.partition(":")
        yield name(path), rest.split()
for f, parts in nm("--defined-only"):
    if len(parts) == 3 and parts[1] in "TDBR" and not parts[2].startswith("."):
        defs.setdefault(parts[2], f)
for f, parts in nm("--undefined-only"):
    if parts:
        uses[f].add(parts[-1])
graph = {f: {} for f in uses}
for f, syms in uses.items():
    for s in syms:
        g = defs.get(s)
        if g and g != f:
            graph[f].setdefault(g, set()).add(s)
# Tarjan's strongly connected components.
index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in graph[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: sccs.append(sorted(comp))
for v in sorted(graph):
    if v not in index: visit(v)
for comp in sccs:
    print("call circle between: " + ", ".join(comp), file=sys.stderr)
    for a in comp:
        for b, syms in sorted(graph[a].items()):
            if b in comp:
                print(f"  {a} -> {b}: {', '.join(sorted(syms)[:4])}", file=sys.stderr)
sys.exit(1 if sccs else 0)
PY
long=$(find src -name '*.[ch]' -exec awk 'END { if (NR > 800) print FILENAME ": " NR " lines" }' {} \;)
[ -z "$long" ] || { echo "files over 800 lines:" >&2; echo "$long" >&2; exit 1; }
echo "layers: no call circles, no file over 800 lines"
