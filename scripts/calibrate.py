#!/usr/bin/env python3
"""Fit the efficiency constants of each device family on the public validation cases.

One set of constants per device family (V100, A100, H100), shared by every case of that
family: never per case or per source. The objective is robust (median + p90 of the
absolute log error of step time), so a few odd published runs cannot drag the constants.
Usage: scripts/calibrate.py [CASES_DIR] [--write]   (needs build/strata)
"""
import math, os, re, subprocess, sys, csv, io

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STRATA = os.environ.get("STRATA", os.path.join(ROOT, "build", "strata"))
CASES = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else os.path.join(ROOT, "tests/validation/public")
WRITE = "--write" in sys.argv

# family -> the preset files that carry its constants
FAMILIES = {
    "V100": ["v100.yaml"],
    "A100": ["dgx-a100-40g.yaml", "dgx-a100-80g.yaml"],
    "H100": ["dgx-h100.yaml"],
}
KEYS = ["gemm", "gemm_half", "fp8_gemm", "grouped_gemm", "flash", "hbm", "layer_us", "coll_intra", "coll_inter", "dp_overlap", "tp_overlap", "contention", "step_ms"]
BOUNDS = {"gemm": (0.2, 0.95), "fp8_gemm": (0.1, 0.95), "grouped_gemm": (0.1, 1.0), "gemm_half": (0, 512), "flash": (0.1, 0.9), "hbm": (0.3, 0.95),
          "layer_us": (0, 500), "coll_intra": (0.3, 1.0), "coll_inter": (0.3, 1.0), "dp_overlap": (0, 1),
          "tp_overlap": (0, 1), "contention": (0, 1), "step_ms": (0, 2000)}

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
    return med + p90, len(e)

def main():
    fam = case_family()
    presets = os.path.join(ROOT, "presets", "clusters")
    only = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--family=")]
    for family, files in FAMILIES.items():
        if only and family not in only:
            continue
        paths = [os.path.join(presets, f) for f in files]
        eff = read_eff(paths[0])
        start = dict(eff)
        best, n = score(run(), fam, family)
        print("%s: %d cases, start objective %.4f" % (family, n, best))
        # coordinate search with shrinking multiplicative steps until nothing improves
        for mults in ((0.5, 0.7, 1.4, 2.0), (0.8, 0.9, 1.1, 1.25), (0.95, 0.97, 1.03, 1.05)):
            improved = True
            while improved:
                improved = False
                for k in KEYS:
                    if k not in eff:
                        continue
                    for mult in mults:
                        trial = dict(eff)
                        v = trial[k] * mult if trial[k] else (10 if k in ("layer_us", "gemm_half", "step_ms") else 0.1)
                        lo, hi = BOUNDS[k]
                        trial[k] = min(hi, max(lo, v))
                        if trial[k] == eff[k]:
                            continue
                        for p in paths:
                            write_eff(p, trial)
                        s, _ = score(run(), fam, family)
                        if s < best - 1e-4:
                            best, eff, improved = s, trial, True
                    for p in paths:
                        write_eff(p, eff)
            print("  steps %s: objective %.4f  %s" % (mults, best, {k: fmt(v) for k, v in eff.items() if k in KEYS}))
        if not WRITE:
            for p in paths:
                write_eff(p, start)
            print("  (dry run: constants restored; pass --write to keep them)")
    return 0

if __name__ == "__main__":
    sys.exit(main())
