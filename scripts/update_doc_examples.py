#!/usr/bin/env python3
"""Bring the checked examples of README.md and docs/*.md up to date after an intended change
of the model: every fenced block whose first line starts with `$ strata ` (the blocks
tests/cli/readme.sh checks) is run again, and each shown output line that the command no
longer prints is replaced by the printed line most like it (same layout, new figures).
Lines `...` are left alone, and so are lines ending in `...` that still prefix a printed
line. Prints what it changed; review the
diff before committing. Explorer captures (<!-- screen: FILE --> blocks) are refreshed by
scripts/screenshots.sh, not here.

Usage: scripts/update_doc_examples.py [STRATA_BINARY]   (default build/strata)
"""
import difflib, glob, os, re, subprocess, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(root)
strata = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/strata")


def run(cmd):
    p = subprocess.run(["bash", "-c", 'strata() { "$STRATA" "$@"; }\n' + cmd],
                       env=dict(os.environ, STRATA=strata), stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    return p.stdout.decode("utf-8", "replace").split("\n")


def update(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    changed, i = 0, 0
    while i < len(lines):
        m = re.match(r"^(`{3,}|~{3,})", lines[i])
        if not m:
            i += 1
            continue
        fence, i = m.group(1), i + 1
        start = i
        while i < len(lines) and not lines[i].startswith(fence):
            i += 1
        if start >= len(lines) or not lines[start].startswith("$ strata "):
            i += 1
            continue
        out = []
        for j in range(start, i):
            line = lines[j]
            if line.startswith("$ "):
                out = run(line[2:])
                continue
            if line == "..." or line in out:
                continue
            if line.endswith("...") and any(o.startswith(line[:-3]) for o in out):
                continue
            best = difflib.get_close_matches(line, out, n=1, cutoff=0.6)
            if best:
                print(f"{path}:{j + 1}:\n  - {line}\n  + {best[0]}")
                lines[j] = best[0]
                changed += 1
            else:
                print(f"{path}:{j + 1}: no printed line is like '{line}'", file=sys.stderr)
        i += 1
    if changed:
        open(path, "w", encoding="utf-8").write("\n".join(lines))
    return changed


n = sum(update(p) for p in ["README.md"] + sorted(glob.glob("docs/*.md")))
print(f"{n} line(s) updated")
