#!/usr/bin/env python3
"""Judge a topology picture from graphviz's own layout (dot -Tjson).

Usage: dot_layout.py LAYOUT.json MAX_EDGES

Switches are known by their topogen names, not by anything fabricd says
about them: sw-c<N> a core, sw-p<P>-a<N> an aggregation switch, sw-p<P>-l<N>
a leaf (sw-s<N> a spine, sw-l<N> a leaf of a 2-level tree).  Checks:
  - no two node boxes overlap;
  - no text line of any label (node or edge) overlaps another label's,
    nor a node box other than its own;
  - the switches of each kind share one y (a rank), levels stacked cores,
    aggregation, leaves from the top, and within a rank x increases in
    natural name order (sw-c2 left of sw-c11);
  - at most MAX_EDGES visible edges.
Prints one line of figures; exits 1 with the first problems found.
"""
import json
import re
import sys

SLACK = 0.5  # points: boxes that only touch do not overlap


def natural(name):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def kind(name):
    for k, rx in (("core", r"sw-c\d+"), ("spine", r"sw-s\d+"), ("agg", r"sw-p\d+-a\d+"),
                  ("leaf", r"sw-(p\d+-)?l\d+")):
        if re.fullmatch(rx, name):
            return k
    return None


def overlap(a, b):
    return (a[0] < b[2] - SLACK and b[0] < a[2] - SLACK and
            a[1] < b[3] - SLACK and b[1] < a[3] - SLACK)


def text_boxes(ops, owner):
    """(x0, y0, x1, y1, owner, text) of each text line an xdot op list draws."""
    size, out = 14.0, []
    for op in ops or []:
        if op["op"] == "F":
            size = op["size"]
        elif op["op"] == "T":
            x, y, w = op["pt"][0], op["pt"][1], op["width"]
            x0 = {"l": x, "r": x - w}.get(op["align"], x - w / 2)
            # baseline y: descent below, ascent above; graphviz spaces the
            # lines of one label 1.1 x the font size apart
            out.append((x0, y - 0.2 * size, x0 + w, y + 0.8 * size, owner, op["text"]))
    return out


def pairs(boxes):
    """Overlapping pairs, by a sweep over x (a few hundred boxes)."""
    boxes = sorted(boxes, key=lambda b: b[0])
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if b[0] >= a[2] - SLACK:
                break
            if overlap(a, b):
                yield a, b


def main():
    layout = json.load(open(sys.argv[1]))
    max_edges = int(sys.argv[2])
    problems = []
    nodes, labels, switches = [], [], {}
    for o in layout.get("objects", []):
        if "pos" not in o:
            continue  # a subgraph (rank=same)
        x, y = (float(v) for v in o["pos"].split(","))
        w, h = float(o["width"]) * 72, float(o["height"]) * 72
        nodes.append((x - w / 2, y - h / 2, x + w / 2, y + h / 2, o["name"], o.get("label", "")))
        labels += text_boxes(o.get("_ldraw_"), o["name"])
        first = o.get("label", "").split("\\n")[0]
        if kind(first):
            switches[first] = (x, y)
    visible = [e for e in layout.get("edges", []) if "invis" not in e.get("style", "")]
    for e in visible:
        for k in ("_ldraw_", "_hldraw_", "_tldraw_"):
            labels += text_boxes(e.get(k), "edge %d" % e["_gvid"])

    for a, b in pairs(nodes):
        problems.append("node boxes overlap: %s and %s" % (a[5], b[5]))
    for a, b in pairs(labels):
        if a[4] != b[4]:
            problems.append("labels overlap: %r (%s) and %r (%s)" % (a[5], a[4], b[5], b[4]))
    for t in labels:
        for n in nodes:
            if n[4] != t[4] and overlap(t, n):
                problems.append("label %r (%s) lies on node %s" % (t[5], t[4], n[5]))

    ranks = {}
    for name, (x, y) in switches.items():
        ranks.setdefault(kind(name), []).append((natural(name), name, x, y))
    for k, members in ranks.items():
        ys = {round(m[3], 1) for m in members}
        if len(ys) != 1:
            problems.append("%d %s switches on %d ranks: %s" % (len(members), k, len(ys), sorted(ys)))
        members.sort()
        for a, b in zip(members, members[1:]):
            if not a[2] < b[2]:
                problems.append("%s (x %.0f) is not left of %s (x %.0f)" % (a[1], a[2], b[1], b[2]))
    order = [k for k in ("core", "spine", "agg", "leaf") if k in ranks]
    for upper, lower in zip(order, order[1:]):
        if not ranks[upper][0][3] > ranks[lower][0][3]:
            problems.append("the %s rank is not above the %s rank" % (upper, lower))
    if len(switches) == 0:
        problems.append("no switch named as topogen names them")
    if len(visible) > max_edges:
        problems.append("%d visible edges, more than %d" % (len(visible), max_edges))

    bb = [float(v) for v in layout["bb"].split(",")]
    print("layout: %d nodes, %d switches on %d ranks, %d visible edges, %d text lines, %.0f x %.0f pt"
          % (len(nodes), len(switches), len(ranks), len(visible), len(labels), bb[2], bb[3]))
    if problems:
        for p in problems[:20]:
            print("  " + p)
        print("%d problem(s)" % len(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
