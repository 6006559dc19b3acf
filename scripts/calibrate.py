#!/usr/bin/env python3
"""Fit the efficiency constants of each device family on the public validation cases.

One set of constants per device family (V100, A100, H100), shared by every case of that
family: never per case or per source. The objective is robust (median + p90 of the
absolute log error of step time), so a few odd published runs cannot drag the constants.
The search runs strata on a temporary copy of presets/ (via $STRATA_DATA), so the repo's
presets change only with --write.

The default cases are the set's two parts together: tests/validation/public (the shared
set) with the proposed corrections of tests/validation/corrections.txt applied to a
temporary copy (scripts/validate_corrected.sh --keep): a case file that misdescribes its run
would otherwise bend the constants of a whole device family (the Zero Bubble files push the
A100 flash-attention efficiency from 0.63 down to 0.45); and tests/validation/added (runs
from sources the shared set does not have, tests/validation/added/README.md).
--as-published takes the public files exactly as they are; --public-only leaves out added/.
A case's source is the prefix of its id before the first '_' (as `strata validate` groups
them), so every source of both parts is held out on its own.

Usage: scripts/calibrate.py [CASES_DIR... | --cases=DIR | --as-published] [--public-only] [--family=F] [--write]
       scripts/calibrate.py --holdout [--jobs=N] [--family=F] [--from-presets] [--predict-as-published] [...]
           leave-one-source-out cross-validation; each fit starts from the neutral defaults
           (--from-presets: from the shipped constants, which have seen the held-out source);
           --predict-as-published fits on the cases chosen as usual but predicts the files
           of tests/validation/public exactly as published; --csv=FILE writes each case's
           measured, in-sample and held-out step time; --family=F keeps to one device
           family's cases (families are fitted apart, so its rows equal the full run's)
Needs build/strata (or $STRATA).
"""
import csv, io, math, os, re, shutil, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STRATA = os.environ.get("STRATA", os.path.join(ROOT, "build", "strata"))
PRESETS = os.path.join(ROOT, "presets")

# family -> the preset files that carry its constants (the first one is read)
FAMILIES = {
    "V100": ["v100.yaml"],
    "A100": ["dgx-a100-40g.yaml", "dgx-a100-80g.yaml"],
    "H100": ["dgx-h100.yaml", "h800.yaml", "h200.yaml"],
}
KEYS = ["gemm", "gemm_half", "fp8_gemm", "grouped_gemm", "flash", "flash_sdpa", "hbm", "layer_us", "coll_intra", "coll_inter", "dp_overlap", "tp_overlap", "contention", "step_ms", "kernel_us"]
BOUNDS = {"gemm": (0.2, 0.95), "fp8_gemm": (0.1, 0.95), "grouped_gemm": (0.1, 1.0), "gemm_half": (0, 512), "flash": (0.1, 0.9), "flash_sdpa": (0.1, 0.9), "hbm": (0.3, 0.95),
          "layer_us": (0, 500), "coll_intra": (0.3, 1.0), "coll_inter": (0.3, 1.0), "dp_overlap": (0, 1),
          "tp_overlap": (0, 1), "contention": (0, 1), "step_ms": (0, 2000),
          # kernel_us: wide on purpose (a launch floor, 0 to 50 us); fitted only where a preset names it
          "kernel_us": (0, 50)}
STEPS = ((0.5, 0.7, 1.4, 2.0), (0.8, 0.9, 1.1, 1.25), (0.95, 0.97, 1.03, 1.05))
EFF_BLOCK = r"^efficiency:\n(?:  .*\n)+"

# cluster_default_eff() of src/core/cluster.c: where a held-out fit starts (see holdout)
NEUTRAL = {"gemm": 0.55, "gemm_half": 64, "fp8_gemm": 0.35, "flash": 0.40, "flash_sdpa": 0.40, "grouped_gemm": 0.7, "hbm": 0.7,
           "layer_us": 20, "coll_intra": 0.75, "coll_inter": 0.8, "dp_overlap": 0.8, "tp_overlap": 0.6,
           "contention": 0.2, "step_ms": 0, "kernel_us": 4}

# Keys a preset may set to 0 to mean something other than a value to fit: fp8_gemm = 0 is a
# family without fp8; flash_sdpa = 0 is "the same kernels as `flash`" (A100: Transformer
# Engine's attention on Ampere is the flash-attn 2 package and PyTorch SDPA's flash backend
# is FlashAttention-2, Dao 2023), so only `flash` is searched and prices both.
TIED_AT_ZERO = ("fp8_gemm", "flash_sdpa")

def start_eff(family, neutral):
    """The constants a fit starts from: the presets', or the neutral defaults (keys the
    family lacks, such as V100's fp8_gemm = 0, stay as the preset has them)."""
    eff = read_eff(os.path.join(PRESETS, "clusters", FAMILIES[family][0]))
    if neutral:
        eff.update({k: v for k, v in NEUTRAL.items() if k in eff and not (k in TIED_AT_ZERO and eff[k] == 0)})
    return eff

# cluster_family() of src/core/cluster.c: parts on the die of a calibrated family
ALIAS = {"A800": "A100", "H800": "H100", "H20": "H100", "H200": "H100", "GH200": "H100", "V100S": "V100"}

def family_of(device):
    m = re.match(r"[^A-Za-z0-9]*([A-Za-z0-9]+)", device)
    fam = m.group(1).upper() if m else ""
    return ALIAS.get(fam, fam)

def fmt(v):
    return ("%.3g" % v) if abs(v) < 1000 else ("%d" % v)

def read_eff(path):
    m = re.search(EFF_BLOCK, open(path).read(), re.M)
    lines = m.group(0).splitlines()[1:] if m else []
    # comment lines inside the block (the memory constants' sources) carry no value
    pairs = (l.split(":", 1) for l in lines if l.strip() and not l.strip().startswith("#"))
    return {k.strip(): float(v.split("#")[0]) for k, v in pairs}

def write_eff(path, eff):
    """Replace (or append) the efficiency block; eff=None removes it (neutral defaults)."""
    txt = open(path).read()
    m = re.search(EFF_BLOCK, txt, re.M)
    if eff is not None and m:
        # change the values in place, so the block's comments (sources) stay
        block, left = m.group(0), dict(eff)
        def put(mm):
            k = mm.group(2)
            return mm.group(1) + fmt(left.pop(k)) + mm.group(4) if k in left else mm.group(0)
        block = re.sub(r"^(  (\w+): )(\S+)(.*)$", put, block, flags=re.M)
        block += "".join("  %s: %s\n" % (k, fmt(v)) for k, v in left.items())
        txt = txt[:m.start()] + block + txt[m.end():]
    elif eff is None:
        txt = re.sub(EFF_BLOCK, "", txt, flags=re.M)
    else:
        txt = txt.rstrip("\n") + "\nefficiency:\n" + "".join("  %s: %s\n" % (k, fmt(v)) for k, v in eff.items())
    open(path, "w").write(txt)

ADDED = os.path.join(ROOT, "tests/validation/added")

def load_cases(*dirs):
    """[(id, family, path)] for every case file of the directories (a .yaml file each)."""
    out = []
    for path in (os.path.join(d, f) for d in dirs for f in sorted(os.listdir(d)) if f.endswith(".yaml")):
        txt = open(path).read()
        dev, cid = re.search(r"^  device:\n    name: (\S+)", txt, re.M), re.search(r"^id: (\S+)", txt, re.M)
        if dev and cid:
            out.append((cid.group(1), family_of(dev.group(1)), path))
    return out

class Sandbox:
    """A private copy of presets/ that strata reads through $STRATA_DATA."""
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="strata-cal-")
        shutil.copytree(PRESETS, os.path.join(self.dir, "presets"))
    def set_eff(self, family, eff):
        for f in FAMILIES[family]:
            write_eff(os.path.join(self.dir, "presets", "clusters", f), eff)
    def validate(self, files):
        if not files:
            return []
        env = dict(os.environ, STRATA_DATA=self.dir)
        out = subprocess.run([STRATA, "validate", *files, "--csv"], capture_output=True, text=True, env=env).stdout
        return [r for r in csv.DictReader(io.StringIO(out)) if r["has_step"] == "1"]
    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

def objective(rows):
    e = sorted(abs(math.log(float(r["pred_step_s"]) / float(r["exp_step_s"]))) for r in rows)
    if not e:
        return 0
    return e[len(e) // 2] + e[min(len(e) - 1, int(math.ceil(0.9 * len(e))) - 1)]

def fit(box, family, eff, files, log=None):
    """Coordinate search with shrinking multiplicative steps until nothing improves."""
    box.set_eff(family, eff)
    best = objective(box.validate(files))
    if log:
        log("%s: %d cases, start objective %.4f" % (family, len(files), best))
    for mults in STEPS:
        improved = True
        while improved:
            improved = False
            for k in (k for k in KEYS if k in eff and not (k in TIED_AT_ZERO and eff[k] == 0)):
                for mult in mults:
                    trial = dict(eff)
                    v = trial[k] * mult if trial[k] else (10 if k in ("layer_us", "gemm_half", "step_ms") else 0.1)
                    trial[k] = min(BOUNDS[k][1], max(BOUNDS[k][0], v))
                    if trial[k] == eff[k]:
                        continue
                    box.set_eff(family, trial)
                    s = objective(box.validate(files))
                    if s < best - 1e-4:
                        best, eff, improved = s, trial, True
        if log:
            log("  steps %s: objective %.4f  %s" % (mults, best, {k: fmt(v) for k, v in eff.items() if k in KEYS}))
    return eff

def fit_and_predict(task):
    """Fit `family` on its cases outside `held` (None: on all) and predict its cases of `held`
    (from the files of `predict`, a {id: path} map, when given)."""
    family, held, cases, source, neutral, predict = task
    train = [p for cid, fam, p in cases if fam == family and source[cid] != held]
    test = [predict.get(cid, p) if predict else p for cid, fam, p in cases
            if fam == family and (held is None or source[cid] == held)]
    box = Sandbox()
    try:
        start = start_eff(family, neutral)
        eff = fit(box, family, start, train) if train else None  # no training case: neutral defaults
        box.set_eff(family, eff)
        return family, held, box.validate(test) if test else [], eff is None
    finally:
        box.close()

def rel_errors(rows):
    return sorted(abs(float(r["pred_step_s"]) / float(r["exp_step_s"]) - 1) for r in rows)

def med_p90(e):
    """Median and nearest-rank p90, as `strata validate` reports them."""
    if not e:
        return float("nan"), float("nan")
    n = len(e)
    med = e[n // 2] if n % 2 else 0.5 * (e[n // 2 - 1] + e[n // 2])
    return med, e[max(0, min(n - 1, int(math.ceil(0.9 * n)) - 1))]

def holdout(cases, jobs, neutral, predict=None, dump=None):
    box = Sandbox()
    try:
        source = {r["id"]: r["source"] for r in box.validate([p for _, _, p in cases])}
    finally:
        box.close()
    cases = [c for c in cases if c[0] in source and c[1] in FAMILIES]
    sources = sorted(set(source[cid] for cid, _, _ in cases))
    tasks = [(fam, held, cases, source, neutral, predict) for held in [None] + sources for fam in FAMILIES
             if any(f == fam and (held is None or source[cid] == held) for cid, f, _ in cases)]
    with ThreadPoolExecutor(max_workers=jobs) as pool:  # the work is in the strata subprocesses
        results = list(pool.map(fit_and_predict, tasks))
    insample = {s: [] for s in sources}
    held_out = {s: [] for s in sources}
    neutral = {s: [] for s in sources}
    for family, held, rows, untrained in results:
        for r in rows:
            (insample if held is None else held_out)[r["source"]].append(r)
        if untrained and held is not None:
            neutral[held].append(family)
    pct = lambda e: "%6.1f%% %6.1f%%" % tuple(100 * x for x in med_p90(rel_errors(e)))
    print("step time |error|: in-sample = constants fitted on all sources; held-out = fitted without the source")
    print("%-16s %5s   %-15s   %s" % ("source", "cases", "in-sample", "held-out"))
    print("%-16s %5s   %7s %7s   %7s %7s" % ("", "", "median", "p90", "median", "p90"))
    for s in sources:
        note = "  (%s: no other source, neutral defaults)" % ",".join(neutral[s]) if neutral[s] else ""
        print("%-16s %5d   %s   %s%s" % (s, len(held_out[s]), pct(insample[s]), pct(held_out[s]), note))
    every = lambda d: [r for s in sources for r in d[s]]
    print("%-16s %5d   %s   %s" % ("all", len(every(held_out)), pct(every(insample)), pct(every(held_out))))
    if dump:  # one row per case: measured, in-sample and held-out prediction
        ins = {r["id"]: r for r in every(insample)}
        with open(dump, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["id", "source", "exp_step_s", "insample_step_s", "heldout_step_s"])
            for r in sorted(every(held_out), key=lambda r: r["id"]):
                w.writerow([r["id"], r["source"], r["exp_step_s"], ins[r["id"]]["pred_step_s"] if r["id"] in ins else "", r["pred_step_s"]])

def main():
    args = sys.argv[1:]
    opt = lambda name: [a.split("=", 1)[1] for a in args if a.startswith("--%s=" % name)]
    pos = [a for a in args if not a.startswith("-")]
    corrected = None
    added = [] if "--public-only" in args or not os.path.isdir(ADDED) else [ADDED]
    if opt("cases") or pos:
        dirs = opt("cases") + pos
    elif "--as-published" in args:
        dirs = [os.path.join(ROOT, "tests/validation/public")] + added
        print("cases: tests/validation/public as published%s" % (" + tests/validation/added" if added else ""))
    else:
        corrected = tempfile.mkdtemp(prefix="strata-corrected-")
        subprocess.run([os.path.join(ROOT, "scripts", "validate_corrected.sh"), "--keep", corrected, STRATA],
                       check=True, stdout=subprocess.DEVNULL)
        dirs = [corrected] + added
        print("cases: tests/validation/public with tests/validation/corrections.txt applied%s"
              % (" + tests/validation/added" if added else ""))
    try:
        return run(args, opt, load_cases(*dirs))
    finally:
        if corrected:
            shutil.rmtree(corrected, ignore_errors=True)

def run(args, opt, cases):
    if "--holdout" in args:
        if "--write" in args:
            sys.exit("calibrate.py: --holdout writes nothing; drop --write")
        # the coordinate search is local, so a fit that starts from the shipped constants
        # (fitted on every source, the held-out one included) remembers that source; by
        # default every fit here starts from the neutral defaults instead
        predict = None
        if "--predict-as-published" in args:
            # fit as usual, predict the files exactly as published: what a run described
            # the published way (no corrections) gets from constants fitted this way
            published = os.path.join(ROOT, "tests/validation/public")
            predict = {cid: p for cid, _, p in load_cases(published)}
            print("predicting: tests/validation/public as published")
        only = opt("family")  # --family=F: only that family's cases (its folds alone)
        holdout([c for c in cases if not only or c[1] in only], int((opt("jobs") or [2])[0]),
                "--from-presets" not in args, predict, (opt("csv") or [None])[0])
        return 0
    only = opt("family")
    box = Sandbox()
    try:
        for family, files in FAMILIES.items():
            if only and family not in only:
                continue
            start = read_eff(os.path.join(PRESETS, "clusters", files[0]))
            eff = fit(box, family, start, [p for _, fam, p in cases if fam == family], log=print)
            if "--write" in args:
                for f in files:
                    write_eff(os.path.join(PRESETS, "clusters", f), eff)
            else:
                print("  (dry run: presets unchanged; pass --write to keep them)")
    finally:
        box.close()
    return 0

if __name__ == "__main__":
    sys.exit(main())
