"""The core layer: the IR and its nodes, errors and exit codes, the semantics table, budgets and limits."""
