"""Claims decided by value: the isl engine's value flow (polyhedral/) compared cell by cell with the z3 engine's IEEE-754 terms (smt/fp.py)."""
