"""Benchmarks and their reports. `grounding` runs ScreenSpot-Pro / ScreenSpot-v2 style grounding evals against an
OpenAI-compatible server; `report` writes the JSON report and one-page HTML summary every eval shares."""
