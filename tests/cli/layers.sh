#!/usr/bin/env bash
# No call circles (docs/architecture.md, "Rooms and floors"), read from the
# library's object files: file A depends on file B when A uses a symbol B
# defines.  Two levels are checked:
#   - files: every strongly connected group of two or more files is a circle;
#   - rooms (src/<room>/, sub-folders included): room A depends on room B
#     when a file of A uses a symbol of B or includes one of B's private
#     headers ("B/x.h"); every strongly connected group of rooms is a
#     circle, so a lower floor never calls or includes a higher one.
# Each circle is named with the files and symbols (or includes) that close
# it.  The checker first proves it can fail: it must reject a planted pair
# of rooms that call each other.  Also: no file under src/ over 800 lines.
source "$(dirname "$0")/lib.sh"
objs=$(dirname "$bin")/CMakeFiles/v10.dir/src
[ -d "$objs" ] || { echo "layers.sh: no object files under $objs" >&2; exit 1; }
here=$(cd "$(dirname "$0")/../.." && pwd)

check() { # check OBJDIR SRCDIR: exit 1 naming every circle
python3 - "$1" "$2" <<'PY'
import os, re, subprocess, sys
root, src = sys.argv[1], sys.argv[2]
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".o"))
name = lambda p: "src/" + os.path.relpath(p, root)[:-2]
room = lambda f: f.split("/")[1]
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
files_g = {f: {} for f in uses}
rooms_g = {}
for f, syms in uses.items():
    rooms_g.setdefault(room(f), {})
    for s in syms:
        g = defs.get(s)
        if g and g != f:
            files_g[f].setdefault(g, set()).add(s)
            if room(g) != room(f):
                rooms_g[room(f)].setdefault(room(g), set()).add(f"{f} uses {s} ({g})")
# Includes of a room's private headers ("room/x.h"; v10/ is the public API).
for d, _, fs in os.walk(src):
    for f in fs:
        if not f.endswith((".c", ".h")):
            continue
        p = os.path.join(d, f)
        rel = "src/" + os.path.relpath(p, src)
        for m in re.finditer(r'#include "([a-z_]+)/[^"]+"', open(p, encoding="utf-8").read()):
            r2 = m.group(1)
            if r2 != room(rel) and r2 != "v10":
                rooms_g.setdefault(room(rel), {}).setdefault(r2, set()).add(
                    f'{rel} includes "{m.group(0)[10:-1]}"')
                rooms_g.setdefault(r2, {})
def sccs(graph):  # Tarjan's strongly connected components of two or more nodes
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
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
            if len(comp) > 1: out.append(sorted(comp))
    for v in sorted(graph):
        if v not in index: visit(v)
    return out
bad = 0
for what, graph in (("call circle between files", files_g), ("circle between rooms", rooms_g)):
    for comp in sccs(graph):
        bad = 1
        print(f"{what}: " + ", ".join(comp), file=sys.stderr)
        for a in comp:
            for b, why in sorted(graph[a].items()):
                if b in comp:
                    print(f"  {a} -> {b}: {', '.join(sorted(why)[:4])}", file=sys.stderr)
sys.exit(bad)
PY
}

# The checker must fail on a planted circle between two rooms.
mkdir -p "$tmp/src/low" "$tmp/src/high" "$tmp/obj/low" "$tmp/obj/high"
echo 'int high_f(void); int low_f(void) { return high_f(); }' > "$tmp/src/low/a.c"
echo 'int low_f(void); int high_f(void) { return 1; } int high_g(void) { return low_f(); }' \
  > "$tmp/src/high/b.c"
cc -c "$tmp/src/low/a.c" -o "$tmp/obj/low/a.o"
cc -c "$tmp/src/high/b.c" -o "$tmp/obj/high/b.o"
if check "$tmp/obj" "$tmp/src" 2> "$tmp/err"; then
  echo "layers.sh: the checker accepted a planted circle between rooms" >&2; exit 1
fi
grep -q "circle between rooms: high, low" "$tmp/err" ||
  { echo "layers.sh: the planted circle was not named:" >&2; cat "$tmp/err" >&2; exit 1; }

check "$objs" "$here/src"
long=$(find "$here/src" -name '*.[ch]' -exec awk 'END { if (NR > 800) print FILENAME ": " NR " lines" }' {} \;)
[ -z "$long" ] || { echo "files over 800 lines:" >&2; echo "$long" >&2; exit 1; }
echo "layers: no call circles between files or rooms, no file over 800 lines"
