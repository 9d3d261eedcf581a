"""Programmatic data with exact labels: grounding screens (`venuskit.synth.grounding`) and, alongside, CAPTCHAs.

Generators render real pages in Chromium and read every label back from the rendered page, so a label is where
the pixels are, not where a template meant them to be.
"""
