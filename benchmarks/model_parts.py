"""What a check costs after the parse, part by part, as multiples of the parse (one process).

    python benchmarks/model_parts.py --tree pytorch-v2.6.0/test
    python benchmarks/model_parts.py --tree DIR --rounds 3

For each file, already in memory and parsed once untimed: CPython's parse, the model with the device
scan (what ``hwlint check`` builds), the model without it (what hwselect builds: classes,
declarations, methods, calls, imports, run-time facts), and the rules over the full model. Each
file's fastest round counts; CPU time, the cycle collector off, as in hwlint's workers. The one
process check of benchmarks/run.py is about parse + model + rules: this says where the part after
the parse goes, and how far a target on it is from what the parts cost.
"""

from __future__ import annotations

import argparse
import ast
import gc
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, required=True, help="the test tree to model")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from ab_model import parsable_files

    from hwlint.model import decode_source
    from hwlint.model.build import Builder
    from hwlint.rules.check import Selection, run_rules
    from hwlint.taxonomy import load_taxonomy

    taxonomy = load_taxonomy(ROOT / "taxonomy.yaml")
    files = parsable_files(args.tree, decode_source)
    gc.disable()
    warnings.simplefilter("ignore")
    parts = ("parse", "model", "model without the device scan", "rules")
    best = {part: [float("inf")] * len(files) for part in parts}
    for _ in range(args.rounds):
        for i, (path, source, encoding) in enumerate(files):
            start = time.process_time()
            tree = ast.parse(source, path)
            best["parse"][i] = min(best["parse"][i], time.process_time() - start)
            start = time.process_time()
            model = Builder(source, path, taxonomy).build(tree, encoding)
            best["model"][i] = min(best["model"][i], time.process_time() - start)
            start = time.process_time()
            Builder(source, path, taxonomy, devices=False).build(tree, encoding)
            best["model without the device scan"][i] = min(
                best["model without the device scan"][i], time.process_time() - start
            )
            start = time.process_time()
            run_rules(model, taxonomy, Selection())
            best["rules"][i] = min(best["rules"][i], time.process_time() - start)
    parse = sum(best["parse"])
    print(f"{len(files)} files, best of {args.rounds} rounds each (CPU time)")
    for part in parts:
        total = sum(best[part])
        print(f"  {part:32s} {total:7.3f} s  {total / parse:5.3f}x the parse")
    scan = sum(best["model"]) - sum(best["model without the device scan"])
    print(f"  {'the device scan alone':32s} {scan:7.3f} s  {scan / parse:5.3f}x the parse")
    return 0


if __name__ == "__main__":
    sys.exit(main())
