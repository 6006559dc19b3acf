#!/usr/bin/env bash
# The examples in README.md and docs/*.md cannot go stale: each one is run again and what the
# page shows must be what the binary prints.
#
# An example is a fenced code block whose first line starts with "$ strata ". Each "$ "
# line in it is a command (a trailing "\" continues it on the next line; only strata
# commands are allowed); the lines after it, up to the next "$ " line or the end of the
# block, are an excerpt of its output. The command runs from the repository root with
# stdout and stderr together, and every line of the excerpt must be a whole line of that
# output, trailing blanks aside, except that
#   - a line that is just "..." stands for lines left out, and blank lines are skipped;
#   - a line ending in "..." matches any output line that starts with the text before it
#     (for run times and thread counts, which differ between machines).
# A fenced block right after the line "<!-- screen: FILE -->" is an excerpt of the explorer
# capture FILE (made by scripts/screenshots.sh): its lines must be lines of FILE, and the
# default plan's capture must show the MFU and HFU that `strata eval` prints today.
# README.md must show the three workflows: a search, an export and a Lua recipe.
. "$(dirname "$0")/_lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
    skip "readme examples" "python3 not found"
    exit 0
fi

python3 - "$STRATA" "$ROOT" <<'PY'
import glob, os, re, subprocess, sys, time

strata, root = sys.argv[1], sys.argv[2]
os.chdir(root)
SAN = re.compile(r"AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer|runtime error:")
files = ["README.md"] + sorted(glob.glob("docs/*.md"))


def blocks(path):
    """(line number of the first content line, fence info, content lines, marker) per block"""
    lines = open(path, encoding="utf-8").read().split("\n")
    i, prev = 0, ""
    while i < len(lines):
        m = re.match(r"^(`{3,}|~{3,})(.*)$", lines[i])
        if not m:
            if lines[i].strip():
                prev = lines[i].strip()
            i += 1
            continue
        fence, start, body = m.group(1), i + 1, []
        i += 1
        while i < len(lines) and not lines[i].startswith(fence):
            body.append(lines[i])
            i += 1
        yield start + 1, body, prev
        prev = ""
        i += 1


def run(cmd):
    t0 = time.time()
    try:
        p = subprocess.run(["bash", "-c", 'strata() { "$STRATA" "$@"; }\n' + cmd],
                           env=dict(os.environ, STRATA=strata), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    except subprocess.TimeoutExpired:
        return None, "", time.time() - t0
    return p.returncode, p.stdout.decode("utf-8", "replace"), time.time() - t0


def missing_lines(shown, got):
    out = [l.rstrip() for l in got.split("\n")]
    miss = []
    for s in shown:
        s = s.rstrip()
        if not s.strip() or s.strip() == "...":
            continue
        if s.endswith("..."):
            pre = s[:-3].rstrip()
            ok = any(o.startswith(pre) for o in out)
        else:
            ok = s in out
        if not ok:
            miss.append(s)
    return miss


def show(text):
    for l in text.split("\n")[:25]:
        print("    | " + l)


readme_cmds = []
for path in files:
    for lineno, body, prev in blocks(path):
        where = "%s:%d" % (path, lineno)
        sm = re.match(r"^<!--\s*screen:\s*(\S+)\s*-->$", prev)
        if sm:
            cap = sm.group(1)
            try:
                got = open(cap, encoding="utf-8").read()
            except OSError as e:
                print("FAIL %s: screen excerpt of %s: %s" % (where, cap, e))
                continue
            miss = missing_lines(body, got)
            if miss:
                print("FAIL %s: screen excerpt: %d line(s) not in %s, first: %r"
                      % (where, len(miss), cap, miss[0]))
            else:
                print("PASS %s: screen excerpt is %d lines of %s" % (where, len(body), cap))
            if os.path.basename(cap) == "default-80x24.txt":
                rc, ev, _ = run("strata eval")
                want = re.findall(r"(MFU [0-9.]+%)\s+(HFU [0-9.]+%)", ev)
                have = re.findall(r"(MFU [0-9.]+%) · (HFU [0-9.]+%)", got)
                if want and have and want[0] == have[0]:
                    print("PASS %s: the capture of the default plan shows today's %s, %s"
                          % (cap, want[0][0], want[0][1]))
                else:
                    print("FAIL %s: the capture shows %s, strata eval prints %s: run "
                          "`bash scripts/screenshots.sh`" % (cap, have[:1], want[:1]))
            continue
        if not body or not body[0].startswith("$ strata "):
            continue
        # split into (command, excerpt) pairs
        cmds, cur, k = [], None, 0
        while k < len(body):
            l = body[k]
            if l.startswith("$ "):
                c = l[2:]
                while c.endswith("\\") and k + 1 < len(body):
                    k += 1
                    c = c[:-1] + " " + body[k].strip()
                cur = (lineno + k, c.strip(), [])
                cmds.append(cur)
            else:
                cur[2].append(l)
            k += 1
        for ln, cmd, shown in cmds:
            where = "%s:%d" % (path, ln)
            if not re.match(r"^strata(\s|$)", cmd):
                print("FAIL %s: only strata commands run in an example: %s" % (where, cmd))
                continue
            if path == "README.md":
                readme_cmds.append(cmd)
            rc, got, secs = run(cmd)
            if rc is None:
                print("FAIL %s: %s: no answer in 60 s" % (where, cmd))
                continue
            if rc > 2 or SAN.search(got):
                print("FAIL %s: %s: exit %d or a sanitizer report" % (where, cmd, rc))
                show(got)
                continue
            n = sum(1 for s in shown if s.strip() and s.strip() != "...")
            if n == 0:
                print("FAIL %s: %s: the example shows no output to check" % (where, cmd))
                continue
            miss = missing_lines(shown, got)
            if miss:
                print("FAIL %s: %s: %d of %d shown line(s) not printed, first: %r"
                      % (where, cmd, len(miss), n, miss[0]))
                show(got)
            else:
                print("PASS %s: %s (%d lines, %.2f s)" % (where, cmd, n, secs))

for what, pat in [("a search", r"^strata search\b"), ("an export", r"^strata export\b.*--to"),
                  ("a Lua recipe from lua/", r"^strata run lua/\S+\.lua")]:
    if any(re.match(pat, c) for c in readme_cmds):
        print("PASS README.md shows %s with its output" % what)
    else:
        print("FAIL README.md shows %s with its output: no checked example found" % what)
PY
