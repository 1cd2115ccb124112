"""The mechanical renames of issue 11 (private names other modules used -> public names), as a
script to re-apply them to code merged from branches written before them:

    python tests/support/renames_issue11.py      # from the repository root; prints what changed

Idempotent: on code already renamed it changes nothing. docs/architecture.md lists the renames.
"""
import re
import subprocess
from pathlib import Path

ALL = [Path(p) for p in subprocess.check_output(["git", "ls-files", "*.py"], text=True).split()
       if Path(p).resolve() != Path(__file__).resolve()]  # not this script's own rules
def files(*names):
    return [Path(n) for n in names]
# (old, new, files or None for all, pattern kind) kind: 'name' = not preceded by word char or '.', 'attr' = preceded by '.', 'any' = word boundary anywhere
RULES = [
 ("_sample", "point_of", None, "name"),
 ("_params_text", "params_text", None, "name"),
 ("_extent_text", "extent_text", None, "name"),
 ("_box", "tensor_box", files("polyhedral/isltools.py", "polyhedral/coverage.py", "polyhedral/claims_value.py", "polyhedral/valueflow.py", "polyhedral/contraction.py", "polyhedral/checks.py", "verified_sched/ops/split_reduction_checks.py"), "name"),
 ("_kv", "kv_text", files("polyhedral/isltools.py", "polyhedral/coverage.py", "polyhedral/checks.py"), "name"),
 ("_safe", "safe_name", None, "name"),
 ("_union", "union_map", None, "attr"),
 ("_union", "union_map", files("polyhedral/model.py"), "def"),
 ("_lin", "linear_form", files("verified_sched/analysis/simplify.py", "verified_sched/ops/partition.py", "verified_sched/ops/privatize.py", "verified_sched/ops/stage.py", "verified_sched/ops/stage_hoisted.py"), "name"),
 ("_render", "render_linear", files("verified_sched/analysis/simplify.py", "verified_sched/ops/partition.py", "verified_sched/ops/privatize.py", "verified_sched/ops/stage.py", "verified_sched/ops/stage_hoisted.py"), "name"),
 ("_child_fields", "child_fields", None, "attr"),  # ir.py keeps _child_fields with a public alias
 ("_KernelEmitter", "KernelEmitter", None, "nameattr"),
 ("_Compiler", "Compiler", None, "nameattr"),
 ("_phases", "run_phases", files("verified_sched/interp/interpreter.py"), "name"),  # now verified_sched/interp/phases.py
 ("_idempotent", "idempotent", files("verified_sched/verify/driver.py", "tests/test_poly_crosscheck.py"), "name"),
 ("_MEMO", "MEMO", None, "nameattr"),
 ("_skel", "skeleton_of", files("polyhedral/coverage.py", "polyhedral/brute.py", "tests/support/brute.py"), "name"),
 ("_axes", "axes", files("polyhedral/phases.py", "polyhedral/race.py"), "attr"),
 ("_axes", "axes", files("polyhedral/phases.py"), "def"),
 ("_phases", "phases_cache", files("polyhedral/race.py"), "attrstr"),
 ("_const", "const_value", files("verified_sched/ops/stage.py", "verified_sched/ops/stage_hoisted.py", "verified_sched/ops/stage_checks.py"), "name"),
 ("_fresh", "fresh_name", files("verified_sched/ops/stage.py", "verified_sched/ops/stage_hoisted.py", "verified_sched/ops/stage_checks.py"), "name"),
 ("_redirect", "redirect_reads", files("verified_sched/ops/stage.py", "verified_sched/ops/stage_hoisted.py", "verified_sched/ops/stage_checks.py"), "name"),
 ("_zero", "zero_value", files("verified_sched/ops/stage.py", "verified_sched/ops/stage_hoisted.py", "verified_sched/ops/stage_checks.py"), "name"),
 ("_wrap", "wrap_lanes", files("verified_sched/ops/tensorize/apply.py", "verified_sched/ops/tensorize/proofs.py"), "name"),
 ("_intrinsic", "intrinsic_of", files("verified_sched/ops/tensorize/apply.py", "verified_sched/ops/tensorize/proofs.py"), "name"),
]
changed = {}
for old, new, fs, kind in RULES:
    targets = fs if fs is not None else ALL
    if kind == "name":
        pat = re.compile(r"(?<![\w.])" + re.escape(old) + r"\b")
    elif kind == "attr":
        pat = re.compile(r"(?<=\.)" + re.escape(old) + r"\b")
    elif kind == "def":
        pat = re.compile(r"(?<=def )" + re.escape(old) + r"\b")
    elif kind == "nameattr":
        pat = re.compile(r"(?<![\w])" + re.escape(old) + r"\b")
    elif kind == "attrstr":
        pat = re.compile(r"(?<=[.\"'])" + re.escape(old) + r"\b")
    for f in targets:
        if not f.exists(): continue
        s = f.read_text()
        s2, n = pat.subn(new, s)
        if n:
            f.write_text(s2)
            changed.setdefault(str(f), []).append(f"{old}->{new} x{n}")
for f, c in sorted(changed.items()):
    print(f, "; ".join(c))
if not changed:
    print("nothing to rename")
