"""The generic goals: the obligations the verify driver states for every kernel and op
(verified_sched/verify/driver.py), as data (obligations.Goal) built from the isl and z3 engines'
queries and witness builders: `in_bounds`, `independence`, `race` (with barrier uniformity).
The ops' own goals live in their op modules (verified_sched/ops/)."""
