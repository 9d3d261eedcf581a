"""Benchmark suites that run many episodes (world tasks, MiniWoB++) serially, on processes or on Ray, resumably,
with a JSON summary and one HTML report per run. See docs/eval.md."""
