#!/usr/bin/env python3
"""Fit the efficiency constants of each device family on the public validation cases.

One set of constants per device family (V100, A100, H100), shared by every case of that
family: never per case or per source. The objective is robust (median + p90 of the
absolute log error of step time), so a few odd published runs cannot drag the constants.
Usage: scripts/calibrate.py [CASES_DIR] [--write]   (needs build/strata)
"""
import math, os, re, subprocess, sys, csv, io

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STRATA = os.path.join(ROOT, "build", "strata")
CASES = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else os.path.join(ROOT, "tests/validation/public")
WRITE = "--write" in sys.argv

# family -> the preset files that carry its constants
FAMILIES = {
    "V100": ["v100.yaml"],
    "A100": ["dgx-a100-40g.yaml", "dgx-a100-80g.yaml"],
    "H100": ["dgx-h100.yaml"],
}
KEYS = ["gemm", "gemm_half", "flash", "hbm", "layer_us", "coll_intra", "coll_inter", "dp_overlap", "tp_overlap"]
BOUNDS = {"gemm": (0.2, 0.95), "gemm_half": (0, 512), "flash": (0.1, 0.9), "hbm": (0.3, 0.95),
          "layer_us": (0, 500), "coll_intra": (0.3, 1.0), "coll_inter": (0.3, 1.0), "dp_overlap": (0, 1),
          "tp_overlap": (0, 1)}

def family_of(device):
    m = re.match(r"[^A-Za-z0-9]*([A-Za-z0-9]+)", device)
    return m.group(1).upper() if m else ""

def read_eff(path):
    eff = {}
    txt = open(path).read()
    m = re.search(r"^efficiency:\n((?:  .*\n)+)", txt, re.M)
    if m:
        for line in m.group(1).splitlines():
            k, v = line.strip().split(":", 1)
            eff[k] = float(v.split("#")[0])
    return eff

def write_eff(path, eff):
    txt = open(path).read()
    block = "efficiency:\n" + "".join("  %s: %s\n" % (k, fmt(v)) for k, v in eff.items())
    if re.search(r"^efficiency:\n(?:  .*\n)+", txt, re.M):
        txt = re.sub(r"^efficiency:\n(?:  .*\n)+", block, txt, flags=re.M)
    else:
        txt = txt.rstrip("\n") + "\n" + block
    open(path, "w").write(txt)

def fmt(v):
    return ("%.3g" % v) if abs(v) < 1000 else ("%d" % v)

def run():
    out = subprocess.run([STRATA, "validate", CASES, "--csv"], capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    return rows

def case_family():
    fam = {}
    for f in os.listdir(CASES):
        txt = open(os.path.join(CASES, f)).read()
        m = re.search(r"^  device:\n    name: (\S+)", txt, re.M)
        cid = re.search(r"^id: (\S+)", txt, re.M)
        if m and cid:
            fam[cid.group(1)] = family_of(m.group(1))
    return fam

def score(rows, fam, family):
    e = sorted(abs(math.log(float(r["pred_step_s"]) / float(r["exp_step_s"])))
               for r in rows if r["has_step"] == "1" and fam.get(r["id"]) == family)
    if not e:
        return 0, 0
    med = e[len(e) // 2]
    p90 = e[min(len(e) - 1, int(math.ceil(0.9 * len(e))) - 1)]
    return med + 0.5 * p90, len(e)

def main():
    fam = case_family()
    presets = os.path.join(ROOT, "presets", "clusters")
    for family, files in FAMILIES.items():
        paths = [os.path.join(presets, f) for f in files]
        eff = read_eff(paths[0])
        start = dict(eff)
        best, n = score(run(), fam, family)
        print("%s: %d cases, start objective %.4f" % (family, n, best))
        for sweep in range(3):
            for k in KEYS:
                if k not in eff:
                    continue
                for mult in (0.7, 0.85, 0.93, 1.07, 1.15, 1.3):
                    trial = dict(eff)
                    v = trial[k] * mult if trial[k] else (10 if k in ("layer_us", "gemm_half") else 0.5)
                    lo, hi = BOUNDS[k]
                    trial[k] = min(hi, max(lo, v))
                    for p in paths:
                        write_eff(p, trial)
                    s, _ = score(run(), fam, family)
                    if s < best - 1e-4:
                        best, eff = s, trial
                for p in paths:
                    write_eff(p, eff)
            print("  sweep %d: objective %.4f  %s" % (sweep, best, {k: fmt(v) for k, v in eff.items()}))
        if not WRITE:
            for p in paths:
                write_eff(p, start)
            print("  (dry run: constants restored; pass --write to keep them)")
    return 0

if __name__ == "__main__":
    sys.exit(main())
