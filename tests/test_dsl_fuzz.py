"""DSL fuzzing in the suite: seeded mutants of the corpus (tests/cases, examples) through
`vsched show` and `vsched verify` in process. Every mutant ends with exit 0, 1, 2 or 3: never
an internal error (4), never a traceback on stderr. `benchmarks/dsl_fuzz.py` runs thousands
of mutants in worker processes with a time limit each.
"""
from __future__ import annotations

import pytest

from verified_sched.cli import main
from support.dsl_mutate import KEYWORDS, LANGUAGE, corpus, mutants
from verified_sched.ops.registry import MODULES

COUNT, CHUNK, SEED = 96, 12, 20261201
_MUTANTS: list = []


def _all(repo_root):
    if not _MUTANTS:
        _MUTANTS.extend(mutants(corpus(repo_root), COUNT, SEED))
    return _MUTANTS


def test_mutants_come_from_the_corpus_and_vary(repo_root):
    sources = corpus(repo_root)
    assert len(sources) >= 40  # tests/cases and examples
    batch = _all(repo_root)
    assert len(batch) == COUNT
    assert len({text for _, text in batch}) > COUNT * 0.9
    kinds = {k for label, _ in batch for k in label.split(":")[2].split("+")}
    assert {"delete", "number", "parens", "sum", "nest"} <= {k.rstrip("0123456789") for k in kinds}
    # deterministic for a seed
    assert [t for _, t in mutants(sources, 5, SEED)] == [t for _, t in batch[:5]]


# the hand-kept list dsl/mutate.py had before the op keywords came from the registry
OLD_KEYWORDS = ("params", "tensor", "kernel", "schedule", "claim", "for", "in", "if", "else", "zero",
                "barrier", "where", "and", "or", "not", "true", "false", "split", "interchange", "by",
                "f32", "i32", "f16", "shared", "vectorized", "thread.x", "block.x", "pad", "floor")


def test_mutation_keywords_are_the_old_list_with_every_op_from_the_registry():
    ops = {m.RECORD.SYNTAX.keyword for m in MODULES}
    assert set(KEYWORDS) == (set(OLD_KEYWORDS) - {"split", "interchange", "pad"}) | ops
    assert {"split", "interchange", "pad", "stage", "winograd"} <= ops
    assert not set(LANGUAGE) & ops and len(KEYWORDS) == len(set(KEYWORDS))


@pytest.mark.parametrize("chunk", range(COUNT // CHUNK))
def test_mutants_exit_0_to_3_without_traceback(tmp_path, capsys, monkeypatch, repo_root, chunk):
    monkeypatch.setenv("VSCHED_CACHE_DIR", str(tmp_path / "cache"))
    codes = []
    for label, text in _all(repo_root)[chunk * CHUNK:(chunk + 1) * CHUNK]:
        path = tmp_path / "mutant.vs"
        path.write_text(text)
        for argv in (["show", str(path)], ["verify", str(path), "--timeout", "3"]):
            rc = main(argv)
            err = capsys.readouterr().err
            assert rc in (0, 1, 2, 3), (label, argv[0], rc, err[-2000:], text[:3000])
            assert "Traceback" not in err and "internal error" not in err, (label, argv[0], err[-2000:])
            if rc == 2:
                assert err.strip(), (label, "exit 2 without a message")
            codes.append(rc)
    assert len(codes) == 2 * CHUNK


def test_fuzz_sample_reaches_the_verifier(repo_root, tmp_path, capsys):
    """Not every mutant is a parse error: some get a verdict (so the fuzz test exercises the
    verifier, not only the parser)."""
    verdicts = 0
    for label, text in _all(repo_root)[:40]:
        path = tmp_path / "m.vs"
        path.write_text(text)
        verdicts += main(["show", str(path)]) == 0
        capsys.readouterr()
    assert verdicts >= 5
