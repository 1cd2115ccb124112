"""Property-based fuzzing of rewrites: public hypothesis strategies (`fuzz.strategies`) and the
`vsched fuzz` campaign (`cli.fuzz`: CLI; `fuzz.driver`: local pool or dask cluster;
`fuzz.campaign`: one hypothesis-driven batch; `fuzz.check`: one example; `fuzz.reproducer`:
shrunk `.vs` files). Nothing here is imported by the verifier itself."""
