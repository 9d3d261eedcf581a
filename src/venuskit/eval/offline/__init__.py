"""Offline benchmarks in their own layouts (AndroidControl, GUI-Odyssey, Multimodal-Mind2Web) with their own
step matching: `venus eval offline`. See docs/eval.md."""
