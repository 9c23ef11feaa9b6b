"""Sliding-tile reference searches: the engines the registry runs (`engines`), breadth-first and
bidirectional search (`bfs`), IDDFS/IDA* (`ida`) with pattern databases (`pattern_db`, `dida`),
shared board tables (`tables`) and IDA* iterations on a Dask cluster (`cluster`). Imports nothing."""
