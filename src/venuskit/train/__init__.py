"""Training: rows from episodes, rule rewards, GRPO/MOPD math, TRL trainer subclasses, and tiny offline models.

Importing this package needs neither torch nor transformers; the modules that use them import them inside.
"""
