#!/usr/bin/env python3
"""compare.py EXPECTED.json ACTUAL.json [REL_TOL]

Compare two `strata eval --json` outputs numerically: numbers may differ by a relative
tolerance (default 1e-6; values below 1e-12 in magnitude count as zero), strings, booleans
and list lengths must match exactly, every expected key must be present. Keys that only the
actual output has are allowed (DESIGN.md: "add more freely"). Exit 0 when equal; else print
a diff-like list ("- expected" / "+ actual" per path) and exit 1."""
import json
import sys


def walk(exp, act, path, tol, diffs):
    if isinstance(exp, bool) or isinstance(act, bool):
        if exp is not act:
            diffs.append((path, exp, act))
    elif isinstance(exp, (int, float)) and isinstance(act, (int, float)):
        scale = max(abs(exp), abs(act))
        if scale >= 1e-12 and abs(exp - act) > tol * scale:
            diffs.append((path, exp, act))
    elif isinstance(exp, dict) and isinstance(act, dict):
        for k, v in exp.items():
            if k not in act:
                diffs.append((path + "." + k, v, "(missing)"))
            else:
                walk(v, act[k], path + "." + k, tol, diffs)
    elif isinstance(exp, list) and isinstance(act, list):
        if len(exp) != len(act):
            diffs.append((path + "[]", "%d items" % len(exp), "%d items" % len(act)))
        for i, (e, a) in enumerate(zip(exp, act)):
            walk(e, a, "%s[%d]" % (path, i), tol, diffs)
    elif exp != act:
        diffs.append((path, exp, act))


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-6
    try:
        with open(sys.argv[1]) as f:
            exp = json.load(f)
        with open(sys.argv[2]) as f:
            act = json.load(f)
    except (OSError, ValueError) as e:
        print("compare.py: %s" % e)
        return 2
    diffs = []
    walk(exp, act, "", tol, diffs)
    if not diffs:
        return 0
    print("--- %s (expected)\n+++ %s (actual), relative tolerance %g" % (sys.argv[1], sys.argv[2], tol))
    for path, e, a in diffs[:30]:
        rel = ""
        if isinstance(e, (int, float)) and isinstance(a, (int, float)) and not isinstance(e, bool):
            rel = "   (%+.3g%%)" % (100.0 * (a - e) / e) if e else ""
        print("- %s: %r" % (path or "(root)", e))
        print("+ %s: %r%s" % (path or "(root)", a, rel))
    if len(diffs) > 30:
        print("... and %d more differences" % (len(diffs) - 30))
    return 1


if __name__ == "__main__":
    sys.exit(main())
