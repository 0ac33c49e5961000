# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks JSON input for the three pages of the public viewer spcl/cats-viz
(commit 0b1f69f, rendure submodule at 39534fb) against the invariants its
parser relies on; a violation makes the page throw, draw wrongly, or drop data.
timeline ({"events": [...]}): fields, accesses only to live buffers, paired
(de)allocations, modes, scopes strictly nested over the one stream. stats
({"all_cfg_stats": [...]}): every array iterated, field types, unique cfg ids,
one entry per container name. cfv (root {"children": [...]}): only BasicBlock
and Loop blocks, no dependencies. Files may be gzip-compressed, as in the viewer.

Usage: python3 tests/vizcheck.py timeline|stats|cfv FILE...
"""
import gzip
import json
import sys
import zlib

EVENT_TYPES = ("allocation", "deallocation", "access", "scope_entry", "scope_exit")
CATEGORIES = ("constant_accesses", "linear_accesses", "strided_accesses",
              "indirect_accesses")
MAX_SHOWN = 20


def _is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


KINDS = {"a string": lambda v: isinstance(v, str), "a number": _is_num,
         "an array": lambda v: isinstance(v, list)}


def _key(v):
    """JavaScript's toString() of a JSON number or string: the viewer's map key."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _want(out, at, obj, name, kind):
    """Whether obj[name] is of the kind; appends a violation if not."""
    if KINDS[kind](obj.get(name)):
        return True
    out.append('%s: "%s" missing or not %s%s' % (
        at, name, kind, " (viewer throws: not iterable)" if kind == "an array" else ""))
    return False


def _objects(out, at, obj, name):
    """Yields (path, element) for each object in the array obj[name]."""
    if _want(out, at, obj, name, "an array"):
        for n, x in enumerate(obj[name]):
            if isinstance(x, dict):
                yield "%s.%s[%d]" % (at, name, n), x
            else:
                out.append("%s.%s[%d]: not an object" % (at, name, n))


def check_timeline(doc):
    """Violations of a new-style memory-timeline file (parseTrace)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("events"), list):
        return ['top level: not an object with an "events" array']
    out, counts = [], dict.fromkeys(EVENT_TYPES, 0)
    live, freed = {}, {}  # buffer key -> index of its allocation / deallocation
    opened = []           # (scope key, index of its entry), innermost last
    for i, e in enumerate(doc["events"]):
        at = "events[%d]" % i
        if not isinstance(e, dict):
            out.append("%s: not an object" % at)
            continue
        t = e.get("type")
        if t not in EVENT_TYPES:
            out.append("%s: unknown type %r, which the viewer treats as a scope_exit" % (at, t))
            continue
        counts[t] += 1
        field = "id" if t.startswith("scope") else "buffer_id"
        if e.get(field) is None:
            out.append("%s: %s without %s (viewer throws reading 'toString')" % (at, t, field))
            continue
        b = _key(e[field])  # a buffer's or a scope's key
        if t == "allocation":
            if not isinstance(e.get("buffer_name"), str):
                out.append("%s: allocation without a string buffer_name "
                           "(viewer throws reading 'replace')" % at)
            if not (_is_num(e.get("size")) and e["size"] >= 0):
                out.append("%s: size %r is not a non-negative number" % (at, e.get("size")))
            if b in live:
                out.append("%s: buffer_id %s allocated again, live since events[%d]"
                           % (at, b, live[b]))
            live[b] = i
        elif t == "deallocation":
            if b in live:
                del live[b]
                freed[b] = i
            else:
                out.append("%s: deallocation of buffer_id %s, which is not live" % (at, b))
        elif t == "access":
            if b not in live:
                why = ("deallocated at events[%d]" % freed[b] if b in freed
                       else "not allocated before")
                out.append("%s: access to buffer_id %s, which is not live (%s): "
                           "viewer throws reading 'y'" % (at, b, why))
            if e.get("mode") not in ("r", "w"):
                out.append('%s: access mode %r is not "r" or "w"' % (at, e.get("mode")))
        elif t == "scope_entry":
            if not isinstance(e.get("scope_type"), str):
                out.append("%s: scope_entry without a string scope_type" % at)
            earlier = [j for k, j in opened if k == b]
            if earlier:
                out.append("%s: scope id %s reused, open since events[%d]" % (at, b, earlier[-1]))
            opened.append((b, i))
        else:
            pos = [n for n, (k, _) in enumerate(opened) if k == b]
            if not pos:
                out.append("%s: scope_exit of id %s, which has no open entry" % (at, b))
                continue
            if pos[-1] != len(opened) - 1:
                out.append("%s: scope_exit of id %s while scope %s (entered at events[%d]) "
                           "is open inside it: not strictly nested" % ((at, b) + opened[-1]))
            del opened[pos[-1]]
    out += ["events[%d]: scope %s is never exited" % (j, k) for k, j in opened]
    if not counts["allocation"]:
        out.append("no allocation (viewer throws 'Input array is empty')")
    if not counts["access"]:
        out.append("no access (the time axis has zero width, nothing is drawn)")
    return out


def check_stats(doc):
    """Violations of an access-statistics file (buildTreeView)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("all_cfg_stats"), list):
        return ['top level: "all_cfg_stats" missing or not an array '
                '(viewer throws "data.all_cfg_stats is not iterable")']
    out, ids, containers = [], {}, {}
    for at, cfg in _objects(out, "root", doc, "all_cfg_stats"):
        _want(out, at, cfg, "name", "a string")
        _want(out, at, cfg, "n_total_accesses", "a number")
        cid = cfg.get("id")
        if not (_is_num(cid) or isinstance(cid, str)):
            out.append('%s: "id" missing or not a number or string' % at)
        elif _key(cid) in ids:
            out.append("%s: id %s already used by %s" % (at, _key(cid), ids[_key(cid)]))
        else:
            ids[_key(cid)] = at
        for here, entry in _objects(out, at, cfg, "accesses"):
            if _want(out, here, entry, "container", "a string"):
                containers.setdefault(entry["container"], []).append(here)
            _want(out, here, entry, "n_total_accesses", "a number")
            for cat in CATEGORIES:
                for there, sub in _objects(out, here, entry, cat):
                    _want(out, there, sub, "name", "a string")
                    _want(out, there, sub, "n_accesses", "a number")
                    for where, rec in _objects(out, there, sub, "accesses"):
                        mode = rec.get("mode")
                        if mode not in ("read", "write"):
                            out.append('%s: mode %r is not "read" or "write"' % (where, mode))
                        m = rec.get("multiplier", 1)
                        if not (_is_num(m) and m > 0):
                            out.append("%s: multiplier %r is not a positive number" % (where, m))
    for name, places in containers.items():
        if len(places) > 1:
            out.append("container %r has %d entries (%s): grouped by container, the "
                       "viewer keeps only the last" % (name, len(places), ", ".join(places)))
    return out


def check_cfv(doc):
    """Violations of a control-flow file (parseControlSequence, drawing)."""
    if not isinstance(doc, dict):
        return ["root: not an object"]
    out = []
    _check_sequence(out, "root", doc)
    return out


def _check_sequence(out, at, seq):
    _check_deps(out, at, seq)
    for here, block in _objects(out, at, seq, "children"):
        t = block.get("type")
        if t == "BasicBlock":
            _check_deps(out, here, block)
        elif t == "Loop":
            if "ranges" in block and not isinstance(block["ranges"], str):
                out.append('%s: "ranges" is not a string' % here)
            _check_sequence(out, here, block)
        elif t == "Conditional":
            out.append("%s: Conditional is unsupported (the viewer recurses until "
                       "'Maximum call stack size exceeded')" % here)
            _check_deps(out, here, block)
            if not _want(out, here, block, "branches", "an array"):
                continue
            for k, br in enumerate(block["branches"]):
                if isinstance(br, list) and len(br) > 1 and isinstance(br[1], dict):
                    _check_sequence(out, "%s.branches[%d][1]" % (here, k), br[1])
                else:
                    out.append("%s.branches[%d]: not a [condition, sequence] pair" % (here, k))
        else:
            out.append("%s: type %r is dropped silently with its subtree" % (here, t))


def _check_deps(out, at, block):
    for side in ("inputs", "outputs"):
        deps = block.get(side)
        if deps is not None and not isinstance(deps, dict):
            out.append("%s.%s: not an object" % (at, side))
            continue
        for name, dep in (deps or {}).items():
            where = "%s.%s[%r]" % (at, side, name)
            if not (isinstance(dep, list) and len(dep) == 2):
                out.append("%s: not a 2-element [memlet, dependsOn] list" % where)
            elif dep[1] != []:
                out.append("%s: dependsOn %r not empty (viewer throws 'Uhoh')" % (where, dep[1]))


def _no_constant(name):
    raise ValueError("%s is not JSON" % name)


def load(path):
    """The document in path, read as the viewer does: gunzipped if that works,
    decoded as UTF-8 (replacing bad bytes, dropping a BOM), then strict JSON."""
    with open(path, "rb") as f:
        raw = f.read()
    try:
        raw = gzip.decompress(raw)
    except (OSError, EOFError, zlib.error):
        pass
    return json.loads(raw.decode("utf-8-sig", errors="replace"),
                      parse_constant=_no_constant)


CHECKS = {"timeline": check_timeline, "stats": check_stats, "cfv": check_cfv}


def check_file(path, page):
    """Violations of the file at path as input to page: timeline, stats or cfv."""
    check = CHECKS[page]  # KeyError for an unknown page
    try:
        doc = load(path)
    except ValueError as exc:
        return ["not JSON or gzip-compressed JSON: %s" % exc]
    return check(doc)


def main(argv):
    if len(argv) < 2 or argv[0] not in CHECKS:
        print("usage: vizcheck.py timeline|stats|cfv FILE...", file=sys.stderr)
        return 2
    status = 0
    for path in argv[1:]:
        try:
            found = check_file(path, argv[0])
        except OSError as exc:
            found = ["cannot read: %s" % exc]
        for msg in found[:MAX_SHOWN]:
            print("%s: %s" % (path, msg))
        if len(found) > MAX_SHOWN:
            print("%s: ... %d violations in all" % (path, len(found)))
        if not found:
            print("%s: ok" % path)
        status |= bool(found)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
