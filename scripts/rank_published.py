#!/usr/bin/env python3
"""Where do published, hand-tuned strategies rank in strata's search?

usage: scripts/rank_published.py [--strata BIN] FILE_OR_DIR...  (prints a Markdown table)

For every plan file with a complete strategy (no `strategy.*` entry in its `unstated:`
list; values the source left to framework defaults are `inferred:` and count as given),
runs `strata search FILE --compare --json --top 1` under the same job (model, cluster,
devices, global batch, sequence length, precision, budget) and prints one row: the
plan's predicted step time, its rank among the fitting strategies (1 + how many are
strictly faster), the search's best and what it gains over the plan. A plan the cost
model says does not fit its devices, or that the core rejects, is listed as such.
Exit status: 0, or 2 when strata could not be run.
"""
import json
import os
import subprocess
import sys


def unstated_strategy(path):
    """The strategy.* entries of the file's `unstated:` list (a plain block list)."""
    out, inside = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if not line[0].isspace() and not line.startswith("-"):
                inside = line.startswith("unstated:")
                rest = line[len("unstated:"):].strip() if inside else ""
                if inside and rest.startswith("["):  # flow list: unstated: [a, b]
                    out += [x.strip() for x in rest.strip("[]").split(",") if x.strip().startswith("strategy.")]
                    inside = False
                continue
            item = line.strip()
            if inside and item.startswith("- ") and item[2:].strip().startswith("strategy."):
                out.append(item[2:].strip())
    return out


def files_of(args):
    for a in args:
        if os.path.isdir(a):
            for n in sorted(os.listdir(a)):
                if n.endswith((".yaml", ".yml")):
                    yield os.path.join(a, n)
        else:
            yield a


def describe(s):
    t = f"dp={s['dp']} tp={s['tp']} pp={s['pp']}"
    if s["vpp"] > 1:
        t += f" vpp={s['vpp']}"
    if s["cp"] > 1:
        t += f" cp={s['cp']}({s['cp_kind']})"
    if s["ep"] > 1 or s["etp"] > 1:
        t += f" ep={s['ep']} etp={s['etp']}"
    return t + f" zero={s['zero']} mbs={s['micro_batch']} {s['recompute']} {s['schedule']}"


def main():
    args = sys.argv[1:]
    strata = os.environ.get("STRATA") or os.path.join(os.path.dirname(__file__), "..", "build", "strata")
    if len(args) >= 2 and args[0] == "--strata":
        strata, args = args[1], args[2:]
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rows, skipped = [], []
    for path in files_of(args):
        missing = unstated_strategy(path)
        name = os.path.splitext(os.path.basename(path))[0]
        if missing:
            skipped.append((name, missing))
            continue
        try:
            p = subprocess.run([strata, "search", path, "--compare", "--json", "--top", "1"],
                               capture_output=True, text=True, timeout=600)
        except OSError as e:
            print(f"rank_published: cannot run {strata}: {e}", file=sys.stderr)
            return 2
        if p.returncode == 2:
            print(f"rank_published: {name}: {p.stderr.strip()}", file=sys.stderr)
            return 2
        res = json.loads(p.stdout or "[]")
        ev = subprocess.run([strata, "eval", path, "--json"], capture_output=True, text=True, timeout=600)
        plan = json.loads(ev.stdout) if ev.stdout.strip() else {}
        if not res:
            rows.append((name, "-", "-", "no strategy fits", "-", "-", p.stderr.strip().split("\n")[-1][:60]))
            continue
        best, srch = res[0], res[0]["search"]
        if "plan_rank" in srch:
            rows.append((name, f"{srch['plan_step_s']:.4g}", f"{srch['step_s']:.4g}", f"{srch['plan_rank']:,}",
                         f"{srch['plan_rank'] - 1:,}", f"{100 * srch['gain_over_plan']:+.1f}%",
                         describe(best["strategy"])))
        elif plan.get("valid"):
            need = plan["memory"]["peak_gib"]
            rows.append((name, f"{plan['time']['step_s']:.4g}", f"{srch['step_s']:.4g}",
                         f"does not fit ({need:.1f} GiB)", "-", "-", describe(best["strategy"])))
        else:
            rows.append((name, "-", f"{srch['step_s']:.4g}", "invalid", "-", "-", describe(best["strategy"])))
    head = ("case", "plan step s", "best step s", "plan rank", "faster", "best gain", "best strategy")
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    ranked = [r for r in rows if r[3][0].isdigit()]
    if ranked:
        top1 = sum(1 for r in ranked if r[3] == "1")
        gains = sorted(float(r[5].rstrip("%")) for r in ranked)
        mid = len(gains) // 2
        median = gains[mid] if len(gains) % 2 else (gains[mid - 1] + gains[mid]) / 2
        print(f"\n{len(rows)} cases with a complete strategy ({len(skipped)} without are skipped); "
              f"{len(ranked)} fit: {top1} ranked first, median predicted gain of the best "
              f"{median:+.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
