"""The CI gate around `vsched verify` (README "CI gate"): many files and directories verified
in parallel processes (`parallel.py`), a content-addressed proof cache (`cache.py`), report
formats for CI (`report/sarif.py`, `report/formats.py`), the verify command itself (`runner.py`) a
pytest plugin (`pytest_plugin.py`, entry point `pytest11`), and the HTML report of
refutations (`report/html.py`, `vsched explain` in `report/explain.py`).

`report/results.py` holds the one record everything here passes around: a file's verification
result in a JSON-able form, from which the human report, the JSON object, the SARIF results
and the GitHub annotations are all rendered, whether it was proved now or read from the cache.
"""
