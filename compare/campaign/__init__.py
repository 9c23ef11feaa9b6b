"""Campaigns: many instances x configurations, each job in its own process group under hard limits,
results in an SQLite store, reports that cross-validate every instance across all configurations.

Modules: `spec` (campaign.toml -> jobs), `job` (one job process: limits, runner, checked result),
`execute` (run one job process and kill its group at the limit), `executors` (local process pool,
Dask), `store` (the SQLite `runs` table), `report` (tables, verdicts, plots), `cli` (`puzzlesat
campaign ...`). This file imports nothing heavy: the job process sets its limits before imports.
"""
