"""The flywheel: the closed loop as stages, in the order a round runs them.

    collect.py  oracle episodes of training tasks, the policy's own rollouts relabelled by the oracle, grounding
                and CAPTCHA synthesis (only training templates, types, families and seeds ever enter)
    rows.py     what was collected, as training rows
    nano.py     venus-nano's recipe: collect -> rows -> featurise once -> SFT -> per-domain GRPO -> MOPD
    judge.py    the nano judge's recipe: contract-labelled episodes -> keypoint and step rows -> fit
    loop.py     `venus loop`: rollouts -> SGV keeps -> rows -> train -> evaluate -> failures written back
    synth.py    task-synthesis runs: compose, prove by the oracle in Chromium, reject with reasons, write a file
"""
