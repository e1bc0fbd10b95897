#!/usr/bin/env python3
"""
layout_check.py BUILD ALLOW: the project's layout, read from what its
objects define and need (nm), not from what its headers say.

File A uses file B when A's object needs a function or variable B's
object defines.  It fails on
  - a circle of files (A uses B ... uses A), and
  - a use that goes up the folders' order (a folder uses only those below
    it; within one folder any use is allowed, circles aside),
unless ALLOW lists it (tests/layout-allow.txt: each line "circle: FILE
FILE ..." or "up: FILE -> FILE", then " # why"): the known ones still to
be taken apart, so that no new one comes in.  An ALLOW line that no longer
happens fails too, so the list only shrinks.

The order, lowest first: common, mad, fabric, the daemon's services
(daemon/ but its top); the SM's rooms, sm/qos and sm/mcast (pure), sm/sa
(pure), sm/core, sm/audit, then sm/ itself (its face: the module, the
control handlers, the metrics); partitions, roce_qos, health, validation; then
the top: daemon/main.c, daemon/modules.c and daemon/commands.c (they
name the modules and their handlers) and cli/.
"""
import os
import subprocess
import sys

RANK = {"common": 0, "mad": 1, "fabric": 2, "daemon": 3, "ha": 3.5,
        "sm/qos": 4.0, "sm/mcast": 4.0, "sm/sa": 4.1, "sm/core": 4.2, "sm/audit": 4.3, "sm": 4.4,
        "partitions": 5, "roce_qos": 5, "health": 6, "validation": 7, "cli": 9}
TOP = {"daemon/main.c", "daemon/modules.c", "daemon/commands.c"}
PRODUCT = set(RANK)


def rank(f):
    return 9 if f in TOP else RANK[os.path.dirname(f)]


def objects(build):
    """Every object of a folder in RANK (a folder not in it is no part of
    the product: tests, tools)."""
    for folder in sorted(PRODUCT):
        d = os.path.join(build, folder)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(".o"):
                yield folder + "/" + name[:-2] + ".c", os.path.join(d, name)


def nm(paths, *flags):
    """{object path: [fields...]}, one nm for all (a process each cost 80 ms)."""
    out = subprocess.run(["nm", "-P", "-A", *flags, *paths], capture_output=True, text=True,
                         check=True)
    per = {}
    for line in out.stdout.splitlines():
        # "PATH: SYMBOL TYPE [VALUE SIZE]"
        path, _, rest = line.partition(": ")
        if rest.strip():
            per.setdefault(path, []).append(rest.split())
    return per


def graph(build):
    objs = list(objects(build))
    paths = [o for _, o in objs]
    if not paths:
        return {}
    defs, undefs = nm(paths, "--defined-only"), nm(paths, "-u")
    defined, needs = {}, {}
    for src, obj in objs:
        for f in defs.get(obj, []):
            if len(f) >= 2 and f[1] in "TDBRCGSV":
                defined.setdefault(f[0], src)
        needs[src] = {f[0] for f in undefs.get(obj, [])}
    return {a: sorted({defined[s] for s in syms if s in defined and defined[s] != a})
            for a, syms in needs.items()}


def circles(g):
    """Tarjan's strongly connected components of more than one file."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        work = [(v, iter(g.get(v, [])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(g.get(nxt, []))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return sorted(out)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: layout_check.py BUILD ALLOW")
    g = graph(sys.argv[1])
    if not g:
        sys.exit("layout_check: no objects under %s (build first)" % sys.argv[1])
    found = set()
    for c in circles(g):
        found.add("circle: " + " ".join(c))
    for a in sorted(g):
        for b in g[a]:
            if rank(b) > rank(a):
                found.add("up: %s -> %s" % (a, b))
    allowed = set()
    with open(sys.argv[2]) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                allowed.add(" ".join(line.split()))
    new = sorted(found - allowed)
    gone = sorted(allowed - found)
    nfiles = len(g)
    nuses = sum(len(v) for v in g.values())
    for x in new:
        print("layout: %s (not in %s)" % (x, sys.argv[2]))
    for x in gone:
        print("layout: %s is in %s but no longer happens: take it out" % (x, sys.argv[2]))
    print("layout: %d files, %d uses, %d known and listed, %d new, %d listed and gone"
          % (nfiles, nuses, len(found & allowed), len(new), len(gone)))
    sys.exit(1 if new or gone else 0)


main()
